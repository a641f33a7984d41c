/** The stages of LGC training (full, top-k, compressed) shared by the wire format, the meter and the trainer. */
package io.lgc4j.core.stage;
