package io.lgc4j.core.codec;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexCodecsTest {

    @Test
    void shouldListEveryCodecWithTheDefaultFirst() {
        assertEquals(List.of("deflate", "deflate-raw-int32", "deflate-gaps-int32", "deflate-gaps-varint",
                "deflate-gaps-byte-planes", "rice"), IndexCodecs.names());
    }

    @Test
    void shouldFindEachCodecUnderItsOwnName() {
        for (String name : IndexCodecs.names()) {
            if (!name.equals(IndexCodecs.DEFAULT_NAME)) {
                assertEquals(name, IndexCodecs.byName(name).name());
            }
        }
        assertSame(IndexCodecs.byName("rice"), IndexCodecs.byName("rice"));
    }

    @Test
    void shouldMakeDeflateWithTheDefaultTransformAndLevelTheDefault() {
        IndexCodec codec = IndexCodecs.defaultCodec();
        assertSame(codec, IndexCodecs.byName("deflate"));
        assertTrue(codec instanceof DeflateIndexCodec);
        assertEquals(DeflateIndexCodec.DEFAULT_TRANSFORM, ((DeflateIndexCodec) codec).transform());
        assertEquals(DeflateIndexCodec.DEFAULT_LEVEL, ((DeflateIndexCodec) codec).level());
    }

    @Test
    void shouldRejectAnUnknownNameListingTheKnownOnes() {
        assertEquals("unknown index codec 'lz4': expected one of [deflate, deflate-raw-int32, deflate-gaps-int32, "
                + "deflate-gaps-varint, deflate-gaps-byte-planes, rice]",
                assertThrows(IllegalArgumentException.class, () -> IndexCodecs.byName("lz4")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> IndexCodecs.byName(null));
    }
}
