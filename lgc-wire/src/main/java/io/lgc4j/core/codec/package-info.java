/**
 * Index codecs: sorted gradient indices ⇄ bytes. {@link io.lgc4j.core.codec.IndexCodec} is the SPI;
 * {@link io.lgc4j.core.codec.DeflateIndexCodec} emits a standard zlib stream (a transform — gaps, varints, byte
 * planes — precedes DEFLATE), {@link io.lgc4j.core.codec.GolombRiceIndexCodec} is the near-entropy alternative, and
 * {@link io.lgc4j.core.codec.IndexCodecs} looks them up by name. Every decoder is bounds-checked: a hostile stream
 * gets a {@link io.lgc4j.core.codec.CodecException}, never an allocation past the caller's bound or an index outside
 * {@code [0, n)}.
 */
package io.lgc4j.core.codec;
