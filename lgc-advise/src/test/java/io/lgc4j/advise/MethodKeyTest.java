package io.lgc4j.advise;

import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Overlap;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MethodKeyTest {

    private static Map<String, Object> described(String topology, String compressor, Map<String, ?> settings,
                                                 String values) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topology", topology);
        m.put("compressor", compressor);
        m.put("compressorSettings", settings);
        if (!compressor.equals("none")) {
            m.put("codec", "deflate-gaps-byte-planes");
        }
        m.put("values", values);
        m.put("topologySettings", Map.of());
        return m;
    }

    @Test
    void shouldGiveEveryDenseSynchronousMethodTheDenseKey() {
        for (String topology : List.of("ring", "ps")) {
            for (Overlap overlap : List.of(Overlap.NONE, Overlap.BACKWARD)) {
                assertEquals(MethodKey.DENSE, MethodKey.of(described(topology, "none", Map.of(), "fp32"),
                        StageSchedule.ALWAYS_FULL, overlap), topology + " " + overlap);
            }
        }
        assertTrue(MethodKey.DENSE.isDense());
    }

    /** Local SGD applies each rank's own gradient between averagings: not dense, its period and start in its key. */
    @Test
    void shouldKeyLocalSgdByItsSettingsNotAsDense() {
        Map<String, Object> local = described("local-sgd", "none", Map.of(), "fp32");
        local.put("topologySettings", Map.of("period", 4, "localFrom", 2));
        MethodKey key = MethodKey.of(local, StageSchedule.ALWAYS_FULL, Overlap.NONE);
        assertEquals("compressor=none;topology=local-sgd;topologySettings.localFrom=2;topologySettings.period=4;"
                + "values=fp32;stages=all/0", key.text());
        assertTrue(!key.isDense());
    }

    @Test
    void shouldKeepWhatChangesTheMath() {
        var ring = described("ring", "none", Map.of(), "fp32");
        assertEquals("compressor=none;topology=ring;values=fp16;stages=all/0",
                MethodKey.of(described("ring", "none", Map.of(), "fp16"), StageSchedule.ALWAYS_FULL, Overlap.NONE)
                        .text());
        assertEquals("compressor=none;topology=ring;values=fp32;stages=all/0;overlap=predicted",
                MethodKey.of(ring, StageSchedule.ALWAYS_FULL, Overlap.PREDICTED).text());
        Map<String, Object> warm = new LinkedHashMap<>(ring);
        warm.put("warmup", Map.of("type", "powersgd", "settings", Map.of("rank", 2)));
        assertEquals("compressor=none;topology=ring;values=fp32;warmup.settings.rank=2;warmup.type=powersgd;"
                + "stages=all/0", MethodKey.of(warm, StageSchedule.ALWAYS_FULL, Overlap.NONE).text());
    }

    @Test
    void shouldLeaveOutTheCodecAndSortNestedSettings() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("ratio", 0.001);
        settings.put("filters", List.of(64, 128));
        var scalecom = described("ring", "scalecom", settings, "fp32");
        MethodKey key = MethodKey.of(scalecom, StageSchedule.denseWarmup(50), Overlap.BACKWARD);
        assertEquals("compressor=scalecom;compressorSettings.filters=[64 128];compressorSettings.ratio=0.001;"
                + "topology=ring;values=fp32;stages=50/rest", key.text());
        var otherCodec = new LinkedHashMap<>(scalecom);
        otherCodec.put("codec", "raw");
        assertEquals(key, MethodKey.of(otherCodec, StageSchedule.denseWarmup(50), Overlap.NONE));
        assertNotEquals(key, MethodKey.of(scalecom, StageSchedule.denseWarmup(100), Overlap.NONE));
        assertNotEquals(key, MethodKey.of(scalecom, new StageSchedule(50, 100), Overlap.NONE));
    }

    @Test
    void shouldRefuseADescriptionWithoutCompressorOrValues() {
        var e = assertThrows(IllegalArgumentException.class, () -> MethodKey.of(Map.of("topology", "ring"),
                StageSchedule.ALWAYS_FULL, Overlap.NONE));
        assertEquals("a method's description names its compressor and values, found keys [topology]",
                e.getMessage());
        assertEquals("a method key is not blank",
                assertThrows(IllegalArgumentException.class, () -> new MethodKey(" ")).getMessage());
    }
}
