/** Ring collectives over the transport SPI: chunked reduce-scatter plus all-gather. */
package io.lgc4j.ring.collective;
