/**
 * An endpoint's link to its peers and the other pieces every topology's protocol is built from, written once: the
 * step-checked link ({@link io.lgc4j.core.link.StepLink}: receive a frame of this step or fail naming both ends,
 * send, relay, broadcast, sum frames in rank order), the division by K ({@link io.lgc4j.core.link.Averages}), a
 * step's gradient in the pieces the backward pass hands over ({@link io.lgc4j.core.link.GradientPieces}), and the
 * shortcuts a topology may take through the mesh ({@link io.lgc4j.core.link.Shortcuts}). The exchanges built from
 * them are {@link io.lgc4j.core.train.GradientExchange}s; one rank's compressor state is
 * {@link io.lgc4j.core.compress.RankState}.
 */
package io.lgc4j.core.link;
