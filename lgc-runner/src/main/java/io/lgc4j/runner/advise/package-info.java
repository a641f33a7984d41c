/**
 * Which method to train with on the user's link (issue 42, {@code docs/design/advise.md}): the candidates a config is
 * compared over ({@link io.lgc4j.runner.advise.AdviseCandidates}), and the advisor that measures the user's model on
 * this process, dry-runs every candidate's own exchange for its bytes, legs and CPU, and predicts each one's step time
 * and time to the target on a given link ({@link io.lgc4j.runner.advise.Advisor},
 * {@link io.lgc4j.runner.advise.Advice}).
 */
package io.lgc4j.runner.advise;
