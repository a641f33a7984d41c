package io.lgc4j.core.compute;

import org.nd4j.common.io.Resource;
import org.nd4j.linalg.factory.Environment;
import org.nd4j.linalg.factory.Nd4jBackend;

/**
 * Not a backend: the {@code Nd4jBackend} service ND4J instantiates, with every backend, before it loads a native
 * library — the one moment at which every JVM with LGC4J on its class path can still choose ND4J's build
 * ({@link Nd4jBuild}), whatever its program did first. It never runs: it says it is unavailable, at the lowest
 * priority.
 */
public final class Nd4jBuildHook extends Nd4jBackend {

    /** Called by ND4J's {@code ServiceLoader}; chooses the build. */
    public Nd4jBuildHook() {
        Nd4jBuild.beforeNd4jLoads();
    }

    @Override
    public boolean isAvailable() {
        return false;
    }

    @Override
    public boolean canRun() {
        return false;
    }

    @Override
    public boolean allowsOrder() {
        return false;
    }

    /** Below every backend's (ND4J sorts by the difference of two priorities: a small number, not MIN_VALUE). */
    @Override
    public int getPriority() {
        return -1_000;
    }

    @Override
    public Resource getConfigurationResource() {
        throw new UnsupportedOperationException("not a backend");
    }

    @Override
    public Class<?> getNDArrayClass() {
        throw new UnsupportedOperationException("not a backend");
    }

    @Override
    public Environment getEnvironment() {
        throw new UnsupportedOperationException("not a backend");
    }

    @Override
    public String buildInfo() {
        return "LGC4J's choice of ND4J's native build, not a backend";
    }

    @Override
    public void logBackendInit() {
    }
}
