/** Per-step measurements: time per {@link io.lgc4j.core.metrics.Phase}, loss, accuracy and metered traffic. */
package io.lgc4j.core.metrics;
