package io.lgc4j.core.compute;

import io.lgc4j.core.compute.Nd4jBuild.Choice;
import io.lgc4j.core.compute.Nd4jBuild.Variant;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class Nd4jBuildTest {
    private static final CpuInfo ZEN4 = new CpuInfo("AMD EPYC (family 25, model 17)", Set.of("sse4_2", "avx", "avx2",
            "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"));
    private static final CpuInfo HASWELL = new CpuInfo("Intel Xeon (family 6, model 63)", Set.of("avx", "avx2",
            "fma"));
    private static final CpuInfo KNL = new CpuInfo("Intel Xeon Phi (family 6, model 87)", Set.of("avx", "avx2",
            "fma", "avx512f", "avx512cd"));
    private static final Set<Variant> BOTH = EnumSet.of(Variant.ONEDNN_AVX2, Variant.ONEDNN_AVX512);

    private static Choice choose(String request, CpuInfo cpu, Set<Variant> jars) {
        return Nd4jBuild.choose(request, null, "Linux", "amd64", cpu, jars::contains);
    }

    @Test
    void theWidestBuildTheCpuRunsWhoseJarIsThereIsChosen() {
        assertEquals(new Choice("-onednn-avx512", "the CPU has AVX-512; linux-x86_64-onednn-avx512 is on the class"
                + " path"), choose(null, ZEN4, BOTH));
        assertEquals(new Choice("-onednn-avx2", "the CPU has AVX2 and no AVX-512; linux-x86_64-onednn-avx2 is on the"
                + " class path"), choose("auto", HASWELL, BOTH));
        // AVX-512 without the BW/DQ/VL the build is compiled for (skylake-avx512): AVX2
        assertEquals("-onednn-avx2", choose(null, KNL, BOTH).extension());
        assertEquals(new Choice("-onednn", "the widest build whose jar is on the class path; linux-x86_64-onednn is on"
                + " the class path"), choose(null, new CpuInfo("old (family 6, model 1)", Set.of("avx")),
                EnumSet.of(Variant.ONEDNN, Variant.GENERIC, Variant.ONEDNN_AVX2)));
    }

    @Test
    void aMissingJarIsNamedWithItsCoordinates() {
        assertEquals(new Choice("-onednn-avx2", "the CPU has AVX2; linux-x86_64-onednn-avx2 is on the class path;"
                + " linux-x86_64-onednn-avx512 would run here, but its jar is not on the class path (add"
                + " org.nd4j:nd4j-native:<dl4j version>:linux-x86_64-onednn-avx512)"),
                choose(null, ZEN4, EnumSet.of(Variant.ONEDNN_AVX2)));
        assertEquals(new Choice(null, "no linux-x86_64 build this CPU runs is on the class path: JavaCPP's choice"),
                choose(null, HASWELL, EnumSet.of(Variant.ONEDNN_AVX512)));
    }

    @Test
    void whatTheUserAskedForIsKeptOrRefusedWithTheReason() {
        assertEquals(new Choice(null, "set by -Dorg.bytedeco.javacpp.platform.extension=-avx2"),
                Nd4jBuild.choose(null, "-avx2", "Linux", "amd64", ZEN4, BOTH::contains));
        assertEquals(new Choice("-onednn-avx2", "asked for by LGC_ND4J_BUILD=onednn-avx2"),
                choose("onednn-avx2", ZEN4, BOTH));
        assertEquals("-onednn-avx2", choose("linux-x86_64-onednn-avx2", ZEN4, BOTH).extension());
        assertEquals(new Choice(null, "LGC_ND4J_BUILD=default: JavaCPP's choice"), choose("default", ZEN4, BOTH));
        assertEquals(new Choice(null, "LGC_ND4J_BUILD=onednn-avx512 asks for linux-x86_64-onednn-avx512, which this"
                + " CPU cannot run (it lacks avx512bw, avx512dq, avx512f, avx512vl): JavaCPP's choice"),
                choose("onednn-avx512", new CpuInfo("x (family 1, model 1)", Set.of("avx2", "fma", "avx512cd")),
                        BOTH));
        assertEquals(new Choice(null, "LGC_ND4J_BUILD=avx2 asks for linux-x86_64-avx2, whose jar is not on the class"
                + " path (add org.nd4j:nd4j-native:<dl4j version>:linux-x86_64-avx2): JavaCPP's choice"),
                choose("avx2", ZEN4, BOTH));
        assertEquals(new Choice(null, "LGC_ND4J_BUILD=avx1024 names no build (expected auto, default or one of"
                + " onednn-avx512, onednn-avx2, onednn, avx512, avx2, generic): JavaCPP's choice"),
                choose("avx1024", ZEN4, BOTH));
        assertEquals("", choose("generic", ZEN4, EnumSet.of(Variant.GENERIC)).extension());
    }

    @Test
    void otherPlatformsAndUnknownCpusAreLeftToJavaCpp() {
        assertEquals(new Choice(null, "JavaCPP's choice for Mac OS X/aarch64 (LGC4J chooses among linux-x86_64 builds"
                + " only)"), Nd4jBuild.choose(null, null, "Mac OS X", "aarch64", ZEN4, BOTH::contains));
        assertNull(choose(null, CpuInfo.UNKNOWN, BOTH).extension());
    }

    /** The hook ran in this JVM before ND4J loaded: the build loaded is the one chosen for this machine. */
    @Test
    void thisProcessRunsTheBuildChosenForItsCpu() {
        Nd4j.create(1);
        ClassLoader loader = getClass().getClassLoader();
        Choice expected = Nd4jBuild.choose(System.getenv(Nd4jBuild.REQUEST_ENV), null, System.getProperty("os.name"),
                System.getProperty("os.arch"), CpuInfo.ofThisMachine(), v -> loader.getResource(v.resource()) != null);
        Nd4jBuild current = Nd4jBuild.current();
        assertEquals(expected.reason(), current.reason());
        if (expected.extension() != null) {
            assertEquals("linux-x86_64" + expected.extension(), current.loaded());
        }
    }

    @Test
    void cpuInfoReadsTheFirstProcessor() {
        CpuInfo cpu = CpuInfo.parse(List.of("processor\t: 0", "vendor_id\t: GenuineIntel", "cpu family\t: 6",
                "model\t\t: 207", "model name\t: Intel(R) Xeon(R) Processor", "flags\t\t: fpu avx avx2 avx512f avx2",
                "", "processor\t: 1", "model name\t: other"));
        assertEquals("Intel(R) Xeon(R) Processor (family 6, model 207)", cpu.model());
        assertEquals(Set.of("fpu", "avx", "avx2", "avx512f"), cpu.flags());
        assertEquals("Intel(R) Xeon(R) Processor (family 6, model 207, avx512f)", cpu.toString());
        assertEquals(CpuInfo.UNKNOWN, CpuInfo.parse(List.of()));
        assertEquals("unknown", CpuInfo.UNKNOWN.toString());
    }
}
