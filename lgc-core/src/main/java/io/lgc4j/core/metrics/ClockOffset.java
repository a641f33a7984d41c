package io.lgc4j.core.metrics;

/**
 * How far an endpoint's trace clock is from rank 0's, estimated by probes on the control plane: rank 0 sends its time
 * t0, the endpoint answers with its own t1, rank 0 reads t3 on return; θ = (t0 + t3) / 2 − t1 of the round with the
 * least round trip, known to ± RTT / 2. Adding {@code offsetMicros} to the endpoint's times puts them on rank 0's
 * clock.
 *
 * @param endpoint     the endpoint
 * @param offsetMicros microseconds to add to the endpoint's trace times
 * @param boundMicros  half the least round trip: the offset's error bound
 * @param driftPpm     the change of the offset between the probes before step 0 and after the last, per million
 *                     (0 when only one estimate exists)
 */
public record ClockOffset(int endpoint, double offsetMicros, double boundMicros, double driftPpm) {
}
