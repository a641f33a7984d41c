/**
 * The compressed warm-up: the FULL stage of any method through a registered compressor or value
 * encoding instead of dense float32 ({@code warmup} section, {@link io.lgc4j.core.warmup.WarmupSection}), resolved
 * into a {@link io.lgc4j.core.warmup.Warmup} and run by {@link io.lgc4j.core.warmup.WarmupExchange}, which hands the
 * warm-up compressor's residual to the main method's error feedback at the switch.
 */
package io.lgc4j.core.warmup;
