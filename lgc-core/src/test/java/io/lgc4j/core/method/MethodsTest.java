package io.lgc4j.core.method;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.NoCompression;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Topology;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The registry: ServiceLoader discovery, lookup by name, the generic/special topology choice, the messages. */
class MethodsTest {

    /** A topology provider that records what it was asked for. */
    private record Named(String type, Set<String> compressorTypes) implements TopologyProvider {
        @Override
        public Topology create(TopologyRequest request) {
            return new Topology() {
                @Override
                public String name() {
                    return type;
                }

                @Override
                public Optional<Compressor> compressor() {
                    return request.compressor().create(request.seed());
                }

                @Override
                public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
                    throw new UnsupportedOperationException();
                }
            };
        }
    }

    private static final Named PS = new Named("ps", Set.of());
    private static final Named LGC_PS = new Named("ps", Set.of("lgc"));
    private static final Named RING = new Named("ring", Set.of());

    private static Methods registry() {
        return Methods.of(List.of(new NoCompression(), new TopKCompressor.Provider(), new DgcCompressor.Provider()),
                List.of(PS, LGC_PS, RING));
    }

    @Test
    void shouldFindTheCompressorsThisModuleRegistersThroughServiceLoader() {
        Methods installed = Methods.installed();
        assertEquals(List.of("dgc", "none", "powersgd", "randomk", "s2", "scalecom", "topk"), installed.compressorTypes());
        for (String type : installed.compressorTypes()) {
            CompressorProvider<?> p = installed.compressor(type);
            assertEquals(type, p.type());
            assertTrue(p.settingsType().isRecord(), type);
        }
        assertSame(installed, Methods.installed(), "loaded once");
    }

    @Test
    void shouldLookUpNamesInAnySpelling() {
        assertEquals("dgc", registry().compressor("DGC").type());
        assertEquals("topk", registry().compressor(" TopK ").type());
        assertSame(RING, registry().topology("RING", "dgc"));
    }

    @Test
    void shouldListTheRegisteredNamesWhenANameIsUnknown() {
        assertEquals("no compressor 'powersgd' is registered; registered compressors: [dgc, none, topk] (a compressor"
                        + " registers its CompressorProvider in META-INF/services/io.lgc4j.core.compress.CompressorProvider)",
                assertThrows(IllegalArgumentException.class, () -> registry().compressor("powersgd")).getMessage());
        assertEquals("no topology 'mesh' is registered; registered topologies: [ps, ring] (a topology registers its"
                        + " TopologyProvider in META-INF/services/io.lgc4j.core.method.TopologyProvider)",
                assertThrows(IllegalArgumentException.class, () -> registry().topology("mesh", "dgc")).getMessage());
    }

    @Test
    void shouldPreferTheProviderThatHandlesTheCompressorAndFallBackToTheGenericOne() {
        assertSame(LGC_PS, registry().topology("ps", "lgc"));
        assertSame(PS, registry().topology("ps", "dgc"));
        assertSame(PS, registry().topology("ps", "none"));
        Methods specialOnly = Methods.of(List.of(), List.of(LGC_PS));
        assertEquals("topology 'ps' has no provider for compressor 'dgc': it registers providers only for compressors"
                + " [lgc] and no generic one", assertThrows(IllegalArgumentException.class,
                () -> specialOnly.topology("ps", "dgc")).getMessage());
    }

    @Test
    void shouldRefuseTwoProvidersOfOneName() {
        String twoCompressors = assertThrows(IllegalStateException.class, () -> Methods.of(
                List.of(new DgcCompressor.Provider(), new DgcCompressor.Provider()), List.of())).getMessage();
        assertEquals("two providers of compressor 'dgc': io.lgc4j.core.compress.DgcCompressor$Provider and"
                + " io.lgc4j.core.compress.DgcCompressor$Provider", twoCompressors);
        String twoGeneric = assertThrows(IllegalStateException.class,
                () -> Methods.of(List.of(), List.of(PS, new Named("ps", Set.of())))).getMessage();
        assertTrue(twoGeneric.startsWith("two providers of topology 'ps' for every compressor (generic): "),
                twoGeneric);
        assertTrue(assertThrows(IllegalStateException.class, () -> Methods.of(List.of(),
                List.of(new Named("PS", Set.of())))).getMessage().contains("must be a lower-case name"));
    }

    /** A compressor that declares a top-level section {@code extra} and a rule tying it to the compressor's type. */
    private record Extra(int level) {
        static final Extra DEFAULT = new Extra(0);
    }

    private static final class WithSection implements CompressorProvider<Extra> {
        private final String type;

        WithSection(String type) {
            this.type = type;
        }

        @Override
        public String type() {
            return type;
        }

        @Override
        public Class<Extra> settingsType() {
            return Extra.class;
        }

        @Override
        public Optional<Compressor> create(Extra settings, long seed) {
            return Optional.empty();
        }

        @Override
        public Map<String, Record> sections() {
            return Map.of("extra", Extra.DEFAULT);
        }

        @Override
        public void checkAcross(ResolvedConfig config) {
            if (config.section("extra").integer("level") > 0
                    && !type.equals(config.section("compressor").text("type"))) {
                throw new SettingsException("extra.level", "needs compressor.type " + type);
            }
        }
    }

    @Test
    void shouldDeclareEachProvidersSectionsOnceAndCheckTheirRules() {
        Methods methods = Methods.of(List.of(new DgcCompressor.Provider(), new WithSection("mine")), List.of());
        assertEquals(Map.of("extra", Extra.DEFAULT), methods.sections());
        assertEquals(Map.of(), registry().sections());
        methods.checkAcross(ResolvedConfig.of(Map.of("compressor", Map.of("type", "dgc"), "extra",
                Map.of("level", 0))));
        String rule = assertThrows(SettingsException.class, () -> methods.checkAcross(
                ResolvedConfig.of(Map.of("compressor", Map.of("type", "dgc"), "extra", Map.of("level", 1)))))
                .getMessage();
        assertEquals("extra.level needs compressor.type mine", rule);
        String twice = assertThrows(IllegalStateException.class, () -> Methods.of(
                List.of(new WithSection("one"), new WithSection("two")), List.of())).getMessage();
        assertEquals("two providers of section 'extra': " + WithSection.class.getName() + " and "
                + WithSection.class.getName(), twice);
    }

    /** A topology that adds keys to {@code topology} at a rank, and a rule on them. */
    private record Keyed(String type, int rank, Record defaults, String rule) implements TopologyProvider {
        @Override
        public List<SectionKeys> sectionKeys() {
            return List.of(new SectionKeys("topology", rank, defaults));
        }

        @Override
        public void checkAcross(ResolvedConfig config) {
            throw new SettingsException("topology." + rule, "broken");
        }

        @Override
        public Topology create(TopologyRequest request) {
            throw new UnsupportedOperationException();
        }
    }

    private record Low(int low) {
    }

    private record High(int high) {
    }

    @Test
    void shouldOrderTopologyKeysAndRulesByRankWhateverTheClassPathOrder() {
        Keyed high = new Keyed("ring", 40, new High(1), "high");
        Keyed low = new Keyed("ps", 10, new Low(0), "low");
        Methods methods = Methods.of(List.of(), List.of(high, low));
        assertEquals(List.of(new Low(0), new High(1)),
                methods.sectionKeys("topology").stream().map(SectionKeys::defaults).toList());
        assertEquals(List.of(), methods.sectionKeys("compressor"));
        String first = assertThrows(SettingsException.class,
                () -> methods.checkAcross(ResolvedConfig.of(Map.of()))).getMessage();
        assertEquals("topology.low broken", first);
        String twice = assertThrows(IllegalStateException.class, () -> Methods.of(List.of(),
                List.of(low, new Keyed("ring", 20, new Low(2), "x")))).getMessage();
        assertEquals("two providers of key 'topology.low': " + Keyed.class.getName() + " and "
                + Keyed.class.getName(), twice);
    }

    @Test
    void shouldBuildTheTopologyForABoundCompressor() {
        ResolvedConfig config = ResolvedConfig.of(Map.of("compressor", Map.of("type", "dgc", "ratio", 0.01,
                "momentum", 0.5, "clipNorm", 0.0, "warmupSteps", 10, "lowPass", 0.1)));
        BoundCompressor<?> dgc = BoundCompressor.bind(registry().compressor("dgc"), config);
        assertEquals(new DgcCompressor.Settings(0.01, 0.5, 0.0, 10), dgc.settings());
        Topology topology = registry().newTopology("ps",
                new TopologyRequest(dgc, IndexCodecs.defaultCodec(), 42, config));
        assertEquals("ps", topology.name());
        assertEquals(new DgcCompressor.Settings(0.01, 0.5, 0.0, 10), topology.describe().compressorSettings());
        assertEquals("dgc", topology.describe().compressor());
    }

    @Test
    void shouldDeriveTheScheduleFromTheStagesTheCompressorGoesThrough() {
        ResolvedConfig config = ResolvedConfig.of(Map.of("compressor", Map.of("ratio", 0.01, "warmupSteps", 0)));
        assertEquals(StageSchedule.ALWAYS_FULL,
                BoundCompressor.bind(new NoCompression(), config).schedule(200, 300));
        assertEquals(StageSchedule.denseWarmup(200),
                BoundCompressor.bind(new TopKCompressor.Provider(), config).schedule(200, 300));
        assertEquals(new StageSchedule(200, 300),
                StageSchedule.through(EnumSet.of(Stage.FULL, Stage.TOP_K, Stage.COMPRESSED), 200, 300));
        assertEquals("a schedule goes through [FULL], [FULL, TOP_K] or [FULL, TOP_K, COMPRESSED], found [TOP_K]",
                assertThrows(IllegalArgumentException.class,
                        () -> StageSchedule.through(EnumSet.of(Stage.TOP_K), 1, 1)).getMessage());
    }
}
