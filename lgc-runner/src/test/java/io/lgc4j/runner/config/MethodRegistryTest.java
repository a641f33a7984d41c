package io.lgc4j.runner.config;

import com.example.lgc4j.BoostedTopKCompressor;
import io.lgc4j.lgc.LgcSettings;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.RandomKCompressor;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.compress.NoCompression;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static io.lgc4j.runner.config.Fixtures.shippedConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry as the configuration uses it: every shipped compressor and topology is found by its YAML name, an
 * unknown name lists the registered ones, and a compressor registered by a jar the project does not know (here the
 * test source set's {@link BoostedTopKCompressor}, registered only in its own {@code META-INF/services}) is chosen,
 * configured, checked and built from YAML like a shipped one.
 */
class MethodRegistryTest {

    private static final String RUN = "run:\n  name: q\n";

    private static String parseError(String yaml) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "x.yaml")).getMessage();
    }

    @Test
    void shouldFindEveryShippedCompressorAndTopologyByItsYamlName() {
        Methods methods = Methods.installed();
        Map<String, Class<?>> providers = Map.of("none", NoCompression.class, "topk", TopKCompressor.Provider.class,
                "dgc", DgcCompressor.Provider.class, "scalecom", ScaleComCompressor.Provider.class,
                "s2", S2SketchCompressor.Provider.class, "lgc", LgcSettings.Provider.class,
                "randomk", RandomKCompressor.Provider.class);
        providers.forEach((type, provider) -> assertInstanceOf(provider, methods.compressor(type), type));
        assertEquals(List.of("local-sgd", "ps", "ring"), methods.topologyTypes());
        for (String type : providers.keySet()) {
            boolean lgc = type.equals("lgc");
            Class<?> ps = lgc ? LgcPsTopology.Provider.class : ParameterServerTopology.Provider.class;
            Class<?> ring = lgc ? LgcRingTopology.Provider.class : RingTopology.Provider.class;
            assertInstanceOf(ps, methods.topology("ps", type), type);
            assertInstanceOf(ring, methods.topology("ring", type), type);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"baseline", "dense-ps", "dense-fp16", "dense-bf16", "dgc", "lgc-ps", "lgc-rar",
        "quickstart", "randomk", "s2",
        "scalecom", "sparse-gd"})
    void shouldBuildEveryShippedConfigsTopologyAndScheduleThroughTheRegistry(String name) {
        ExperimentConfig config = ConfigLoader.load(shippedConfig(name + ".yaml"));
        ConfiguredMethod method = config.method();
        Topology topology = method.newTopology();
        String compressor = config.compressor().type().toString();
        boolean ps = config.topology().type().equals(TopologyType.PS);
        Class<?> expected = switch (compressor) {
            case "lgc" -> ps ? LgcPsTopology.class : LgcRingTopology.class;
            default -> ps ? ParameterServerTopology.class : RingTopology.class;
        };
        assertInstanceOf(expected, topology);
        assertEquals(config.topology().type().toString(), topology.describe().topology());
        assertEquals(compressor, topology.describe().compressor());
        int full = config.stages().fullIterations();
        StageSchedule schedule = switch (compressor) {
            case "none" -> StageSchedule.ALWAYS_FULL;
            case "lgc" -> new StageSchedule(full, config.stages().aeTrainingIterations());
            default -> StageSchedule.denseWarmup(full);
        };
        assertEquals(schedule, method.stages());
    }

    @Test
    void shouldListTheRegisteredNamesWhenANameIsUnknown() {
        assertEquals("x.yaml: key 'compressor.type' expects one of [boosted-topk, dgc, lgc, none, powersgd, randomk,"
                + " s2, scalecom, topk], found \"signsgd\"", parseError(RUN + "compressor: {type: signsgd}\n"));
        assertEquals("x.yaml: key 'topology.type' expects one of [local-sgd, ps, ring], found \"mesh\"",
                parseError(RUN + "topology: {type: mesh}\n"));
        assertEquals("no compressor 'signsgd' is registered; registered compressors: [boosted-topk, dgc, lgc, none,"
                + " powersgd, randomk, s2, scalecom, topk] (a compressor registers its CompressorProvider in"
                + " META-INF/services/io.lgc4j.core.compress.CompressorProvider)",
                assertThrows(IllegalArgumentException.class, () -> CompressorType.of("signsgd")).getMessage());
    }

    @Test
    void shouldBuildAThirdPartyCompressorFromYamlWithItsOwnKey() {
        ExperimentConfig config = ConfigLoader.parse(RUN + "topology: {type: ps}\n"
                + "compressor: {type: boosted-topk, ratio: 0.01, boost: 3}\n", "x.yaml");
        assertEquals(Map.of("boost", 3), config.compressor().extensions());
        ConfiguredMethod method = config.method();
        assertInstanceOf(BoostedTopKCompressor.Provider.class, method.compressor().provider());
        Topology topology = method.newTopology();
        assertInstanceOf(ParameterServerTopology.class, topology);
        assertEquals("boosted-topk", topology.describe().compressor());
        assertEquals(new BoostedTopKCompressor.Settings(0.01, 3), topology.describe().compressorSettings());
        ParamBlock out = new ParamBlock(0, 2, "out", "W", 0, 100, new long[] {100}, LayerPolicy.TOP_K);
        assertEquals(0.03, topology.compressor().orElseThrow().density(0, out), 1e-12);
        assertEquals(StageSchedule.denseWarmup(200), method.stages());
    }

    @Test
    void shouldFillAThirdPartyKeyFromItsDefaultsAndWriteItInTheResolvedConfig() {
        ExperimentConfig config = ConfigLoader.parse(RUN + "compressor: {type: boosted-topk}\n", "x.yaml");
        assertEquals(Map.of("boost", 2), config.compressor().extensions());
        String yaml = config.toYaml();
        assertTrue(yaml.contains("    groupSize: 8\n  boost: 2\nstages:"), yaml);
        assertEquals(config, ConfigLoader.parse(yaml, "config.yaml"));
    }

    @Test
    void shouldCheckAThirdPartyKeyByItsSettingsRecordNamingTheKey() {
        assertEquals("x.yaml: key 'compressor.boost' must be >= 1, found 0",
                parseError(RUN + "compressor: {type: boosted-topk, boost: 0}\n"));
        assertEquals("x.yaml: key 'compressor.boost' expects an integer, found \"many\"",
                parseError(RUN + "compressor: {type: boosted-topk, boost: many}\n"));
        assertEquals("x.yaml: unknown key 'compressor.bost'; allowed keys under 'compressor': boost, clipNorm, codec,"
                + " lowPass, momentum, ratio, sketch, type, values, warmupSteps",
                parseError(RUN + "compressor: {type: boosted-topk, bost: 3}\n"));
        // a key no shipped compressor has belongs to its type: with another type it is named as such
        assertEquals("x.yaml: key 'compressor.boost' applies to compressor.type boosted-topk only, found with"
                + " compressor.type none; remove it or change the type",
                parseError(RUN + "compressor: {type: none, boost: 3}\n"));
        // while the shared keys stay accepted whatever the type, as in configs/baseline.yaml
        assertEquals(0.01, ConfigLoader.parse(RUN + "compressor: {type: none, ratio: 0.01, momentum: 0.5}\n",
                "x.yaml").compressor().ratio());
    }

    /**
     * Without {@code learnedRatio} the compressor's settings take the ratio for it (the counts of every existing
     * config) and the resolved config.yaml does not write it; given, it reaches the settings, the description and
     * config.yaml, and reads back the same.
     */
    @Test
    void shouldTakeTheRatioForTheLearnedBlocksUnlessLearnedRatioIsGiven() {
        ExperimentConfig plain = ConfigLoader.parse(RUN + "compressor: {type: topk, ratio: 0.01}\n", "x.yaml");
        assertEquals(Map.of(), plain.compressor().extensions());
        assertEquals(new TopKCompressor.Settings(0.01, 0, 0.01), plain.method().compressor().settings());
        assertFalse(plain.toYaml().contains("learnedRatio"), plain.toYaml());

        ExperimentConfig given = ConfigLoader.parse(RUN + "topology: {type: ring}\n"
                + "compressor: {type: randomk, ratio: 0.01, learnedRatio: 0.04}\n", "x.yaml");
        assertEquals(Map.of("learnedRatio", 0.04), given.compressor().extensions());
        ConfiguredMethod method = given.method();
        // a YAML config always has compressor.lowPass (0.1 by default): random-k's memory is filtered with it
        assertEquals(new RandomKCompressor.Settings(0.01, 0.04, 0.1), method.compressor().settings());
        Topology ring = method.newTopology();
        assertInstanceOf(RingTopology.class, ring);
        assertEquals(new RandomKCompressor.Settings(0.01, 0.04, 0.1), ring.describe().compressorSettings());
        assertTrue(given.toYaml().contains("  learnedRatio: 0.04\n"), given.toYaml());
        assertEquals(given, ConfigLoader.parse(given.toYaml(), "config.yaml"));
        assertEquals(new DgcCompressor.Settings(0.01, 0.9, 0.0, 100, 0.002), ConfigLoader.parse(
                RUN + "compressor: {type: dgc, ratio: 0.01, warmupSteps: 100, learnedRatio: 0.002}\n"
                        + "model: {updater: {type: sgd}}\n", "x.yaml").method().compressor().settings());
    }

    @Test
    void shouldReportTheSharedKeysByTheirKeyAsBefore() {
        assertEquals("x.yaml: key 'compressor.ratio' expects a number, found \"high\"",
                parseError(RUN + "compressor: {ratio: high}\n"));
        assertEquals("x.yaml: key 'compressor' expects a mapping, found 5", parseError(RUN + "compressor: 5\n"));
        assertEquals("x.yaml: key 'compressor.sketch.rows' must be odd, found 4",
                parseError(RUN + "compressor: {sketch: {rows: 4}}\n"));
        assertEquals("x.yaml: key 'compressor.type' expects one of [boosted-topk, dgc, lgc, none, powersgd, randomk,"
                + " s2, scalecom, topk], found 3", parseError(RUN + "compressor: {type: 3}\n"));
        assertEquals(CompressorType.SCALECOM, ConfigLoader.parse(RUN + "compressor: {type: SCALECOM}\n", "x.yaml")
                .compressor().type());
        assertEquals("x.yaml: key 'compressor.type' expects one of [boosted-topk, dgc, lgc, none, powersgd, randomk,"
                + " s2, scalecom, topk], found \"zip\"", parseError(RUN + "compressor: {type: zip}\n"));
        assertEquals("x.yaml: key 'compressor.ratio' must be > 0, found 0.0", parseError(RUN + "compressor: {ratio: 0}\n"));
        assertEquals("x.yaml: key 'compressor.ratio' must be <= 1.0, found 2.0",
                parseError(RUN + "compressor: {ratio: 2}\n"));
        assertEquals("x.yaml: key 'compressor.warmupSteps' expects an integer, found 1.5",
                parseError(RUN + "compressor: {warmupSteps: 1.5}\n"));
        assertEquals("x.yaml: key 'compressor.momentum' must be in [0, 1), found 1.0",
                parseError(RUN + "compressor: {momentum: 1}\n"));
        assertEquals("x.yaml: key 'compressor.sketch' expects a mapping, found 5",
                parseError(RUN + "compressor: {sketch: 5}\n"));
        assertEquals("x.yaml: key 'compressor.sketch.groupSize' expects an integer, found \"8\"",
                parseError(RUN + "compressor: {sketch: {groupSize: '8'}}\n"));
        assertEquals("x.yaml: unknown key 'compressor.sketch.row'; allowed keys under 'compressor.sketch':"
                + " columnsPerSelected, groupSize, rows", parseError(RUN + "compressor: {sketch: {row: 5}}\n"));
        // a key with no value takes its default, as everywhere in a config
        assertEquals(0.001, ConfigLoader.parse(RUN + "compressor: {ratio: }\n", "x.yaml").compressor().ratio());
        assertEquals(1.0, ConfigLoader.parse(RUN + "compressor: {ratio: 1}\n", "x.yaml").compressor().ratio());
    }

    @Test
    void shouldGiveProvidersTheSectionsAsConfigYamlWritesThem() {
        ExperimentConfig config = ConfigLoader.parse(RUN + "compressor: {type: dgc}\nmodel: {updater: {type: sgd}}\n",
                "x.yaml");
        Map<String, Object> compressor = config.resolved().section("compressor").values();
        assertEquals("dgc", compressor.get("type"));
        assertEquals(Map.of("rows", 5, "columnsPerSelected", 4.0, "groupSize", 8), compressor.get("sketch"));
        assertEquals("leader", config.resolved().section("topology").values().get("support"));
        CompressorProvider<?> dgc = Methods.installed().compressor("dgc");
        assertEquals(new DgcCompressor.Settings(0.001, 0.9, 0.0, 0), dgc.settings(config.resolved()));
    }

    /**
     * A program whose class path lacks a module LGC4J ships a name in (lgc-runner brings topology-ps and lgc at run
     * time only, which a class path of compile scope leaves out) is told which module to add.
     */
    @Test
    void aShippedNameMissingFromTheClassPathShouldNameItsModule() {
        ConfigException ps = assertThrows(ConfigException.class, () -> SectionBinding.registeredName("topology.type",
                "ps", null, name -> java.util.Optional.empty(), List.of("local-sgd", "ring")));
        assertEquals("key 'topology.type' expects one of [local-sgd, ring], found \"ps\" (LGC4J registers \"ps\" in"
                + " module io.lgc4j:topology-ps, which is not on the class path: add it as a dependency)",
                ps.getMessage());
        ConfigException lgc = assertThrows(ConfigException.class, () -> SectionBinding.registeredName(
                "compressor.type", "lgc", null, name -> java.util.Optional.empty(), List.of("none", "topk")));
        assertTrue(lgc.getMessage().endsWith("(LGC4J registers \"lgc\" in module io.lgc4j:lgc, which is not on the class"
                + " path: add it as a dependency)"), lgc.getMessage());
        ConfigException other = assertThrows(ConfigException.class, () -> SectionBinding.registeredName(
                "topology.type", "mesh", null, name -> java.util.Optional.empty(), List.of("ring")));
        assertEquals("key 'topology.type' expects one of [ring], found \"mesh\"", other.getMessage());
    }
}
