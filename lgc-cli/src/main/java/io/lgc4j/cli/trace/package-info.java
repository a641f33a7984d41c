/**
 * Reading a run's merged trace ({@code --trace FILE}): {@link io.lgc4j.cli.trace.TraceSummary} splits each
 * worker's step into compute, wire, the waits by cause and throttling ({@code timeline.csv}), and per stage.
 */
package io.lgc4j.cli.trace;
