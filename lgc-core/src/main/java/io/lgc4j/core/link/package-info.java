/**
 * The pieces every topology's protocol is built from, written once: a step-checked link to the peers
 * ({@link io.lgc4j.core.link.StepLink}: receive a frame of this step or fail naming both ends, send, relay,
 * broadcast, sum frames in rank order), the division by K ({@link io.lgc4j.core.link.Averages}), and one rank's
 * compressor state as a closed set of kinds ({@link io.lgc4j.core.link.RankState}).
 */
package io.lgc4j.core.link;
