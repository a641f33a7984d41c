package io.lgc4j.runner.config;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.warmup.Warmup;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code warmup} section: its defaults are today's dense warm-up, a compressor's keys sit beside its own and are
 * written back whole, the method resolves it, {@code lgc config keys} lists it, and every bad section is refused with
 * the key and what is allowed.
 */
class WarmupConfigTest {

    private static final String RUN = "run:\n  name: q\n";
    private static final String LGC_PS = RUN + "topology: {type: ps}\ncompressor: {type: lgc}\n";

    private static ExperimentConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "x.yaml");
    }

    private static String parseError(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
    }

    @Test
    void shouldDefaultToTheDenseWarmupThatBuildsNoWrapper() {
        ExperimentConfig config = parse(LGC_PS);
        assertEquals(WarmupConfig.defaults(), config.warmup());
        assertSame(Warmup.NONE.getClass(), config.method().warmup().getClass());
        assertTrue(config.method().warmup().isNone());
    }

    @Test
    void shouldResolveAPowerSgdWarmupWithItsOwnKeysAndWriteThemBack() {
        ExperimentConfig config = parse(LGC_PS + "warmup: {type: powersgd, rank: 2, values: fp16}\n");
        Warmup warmup = config.method().warmup();
        PowerSgdCompressor powerSgd = assertInstanceOf(PowerSgdCompressor.class, warmup.compressor());
        assertEquals(2, powerSgd.settings().rank());
        assertEquals(ValueEncoding.FP16, warmup.values());
        assertTrue(warmup.carryMemory());
        String yaml = config.toYaml();
        assertTrue(yaml.contains("warmup:\n  type: powersgd\n  values: fp16\n  carryMemory: true\n  rank: 2\n"
                + "  minCompressionRate: 2.0\n  warmStart: true\n  errorFeedback: true\n"), yaml);
        assertEquals(config, ConfigLoader.parse(yaml, "config.yaml"));
    }

    @Test
    void aDenseWarmupInHalfPrecisionShouldHaveNoCompressor() {
        Warmup warmup = parse(RUN + "compressor: {type: scalecom}\nwarmup: {values: bf16}\n").method()
                .warmup();
        assertNull(warmup.compressor());
        assertEquals(ValueEncoding.BF16, warmup.values());
    }

    /** Without a compressor the run is all FULL: a warm-up compressor is then the method (dense ring and PS). */
    @Test
    void shouldBuildAWarmupCompressorOnTheDenseTopologies() {
        for (String topology : List.of("ring", "ps")) {
            ExperimentConfig config = parse(RUN + "topology: {type: " + topology + "}\nwarmup: {type: powersgd}\n");
            assertInstanceOf(PowerSgdCompressor.class, config.method().warmup().compressor());
            assertEquals(topology, config.method().newTopology().name());
        }
    }

    @Test
    void shouldRefuseLgcAsAWarmupNamingWhatIsAllowed() {
        assertEquals("x.yaml: key 'warmup.type' cannot be lgc: its autoencoder has not trained during the warm-up"
                + " (it trains in TOP_K, after it); allowed: " + allowed(), parseError(LGC_PS + "warmup: {type: lgc}\n"));
    }

    @Test
    void shouldRefuseAnUnknownWarmupType() {
        assertEquals("x.yaml: key 'warmup.type' expects one of " + allowed() + ", found \"powersdg\"",
                parseError(LGC_PS + "warmup: {type: powersdg}\n"));
    }

    @Test
    void shouldRefuseAKeyTheWarmupCompressorDoesNotRead() {
        assertEquals("x.yaml: unknown key 'warmup.rnak'; allowed keys under 'warmup': carryMemory, errorFeedback,"
                + " minCompressionRate, rank, type, values, warmStart", parseError(LGC_PS + "warmup: {type: powersgd, rnak: 2}\n"));
        assertEquals("x.yaml: unknown key 'warmup.rank'; allowed keys under 'warmup': carryMemory, type, values",
                parseError(LGC_PS + "warmup: {rank: 2}\n"));
    }

    @Test
    void shouldRefuseABadValueNamingTheWarmupKey() {
        assertEquals("x.yaml: key 'warmup.values' expects one of [inherit, fp32, fp16, bf16], found \"fp8\"",
                parseError(LGC_PS + "warmup: {values: fp8}\n"));
        assertEquals("x.yaml: key 'warmup.rank' must be >= 1, found 0",
                parseError(LGC_PS + "warmup: {type: powersgd, rank: 0}\n"));
        assertEquals("x.yaml: key 'warmup.carryMemory' expects a boolean, found \"yes please\"",
                parseError(LGC_PS + "warmup: {type: topk, carryMemory: yes please}\n"));
    }

    @Test
    void shouldRefuseAPayloadTheTopologyCannotCarry() {
        assertEquals("x.yaml: key 'warmup.type' cannot be powersgd with topology.servers 2: a sharded server sums"
                + " elements of its slices, and PowerSGD's factors are not elements of the gradient; use a sparse"
                + " compressor (topk, dgc, scalecom, randomk) or one server",
                parseError(RUN + "topology: {type: ps, servers: 2}\ncompressor: {type: topk}\n"
                        + "warmup: {type: powersgd}\n"));
        assertEquals("x.yaml: key 'warmup.type' cannot be topk with compressor.type lgc on topology.servers 2: a"
                + " sharded LGC-PS takes a dense warm-up only; use warmup.type none (warmup.values may be fp16 or"
                + " bf16) or one server",
                parseError(RUN + "topology: {type: ps, servers: 2}\ncompressor: {type: lgc}\nwarmup: {type: topk}\n"));
    }

    @Test
    void shouldRefuseDgcAsAWarmupWithAMomentumUpdater() {
        assertEquals("x.yaml: key 'warmup.type' cannot be dgc with model.updater.type nesterovs: DGC applies momentum"
                + " itself (compressor.momentum), so the model's updater must be sgd; or choose another warm-up",
                parseError(LGC_PS + "warmup: {type: dgc}\n"));
    }

    @Test
    void configKeysShouldListTheWarmupSection() {
        List<String> lines = ConfigSchema.installed().keys().stream().map(Object::toString)
                .filter(k -> k.startsWith("warmup.")).toList();
        assertTrue(lines.contains("warmup.type = none   one of " + allowed()), lines.toString());
        assertTrue(lines.contains("warmup.values = inherit   one of [inherit, fp32, fp16, bf16]"), lines.toString());
        assertTrue(lines.contains("warmup.carryMemory = true"), lines.toString());
        assertTrue(lines.contains("warmup.rank = 1   warmup.type powersgd only"), lines.toString());
        assertTrue(lines.stream().anyMatch(k -> k.startsWith("warmup.ratio = (absent: compressor.ratio)   warmup.type")
                && k.endsWith(" dgc or randomk or s2 or scalecom or topk only")), lines.toString());
        assertTrue(lines.stream().noneMatch(k -> k.contains(" lgc")), "lgc is no warm-up: " + lines);
    }

    private static String allowed() {
        return Warmup.types(io.lgc4j.core.method.Methods.installed()).toString();
    }
}
