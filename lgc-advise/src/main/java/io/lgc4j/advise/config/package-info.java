/**
 * {@code lgc advise} for a config ({@code docs/design/advise.md}): the candidates a config is compared over
 * ({@link io.lgc4j.advise.config.AdviseCandidates}), and {@link io.lgc4j.advise.config.ConfigAdvisor}, which turns the
 * config and its candidates into the core {@link io.lgc4j.advise.Advisor}'s model, data and
 * {@link io.lgc4j.advise.MethodCandidate}s, with each candidate's steps to the target from the shipped evidence.
 */
package io.lgc4j.advise.config;
