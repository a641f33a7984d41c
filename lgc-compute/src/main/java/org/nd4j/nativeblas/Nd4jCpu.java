package org.nd4j.nativeblas;

/**
 * The class name DL4J 1.0.0-M2.1's layers still look up, forwarding to where ND4J M2.1 moved it.
 *
 * <p>Why it exists: DL4J M2.1 decides whether a convolution, pooling, batch-norm or LRN layer may run on oneDNN in
 * {@code org.deeplearning4j.nn.layers.mkldnn.BaseMKLDNNHelper#mklDnnEnabled()}, which loads
 * {@code "org.nd4j.nativeblas.Nd4jCpu$Environment"} by name and calls {@code getInstance().isUseMKLDNN()}. ND4J M2.1
 * moved that class to {@code org.nd4j.linalg.cpu.nativecpu.bindings.Nd4jCpu.Environment} and renamed the method
 * {@code isUseONEDNN()}; the lookup fails, DL4J logs "Cannot find class [org.nd4j.nativeblas.Nd4jCpu$Environment]",
 * remembers the failure in a static flag and builds every such layer without its helper: forward and backward then
 * go through {@code im2col} and a plain matrix product, 3 to 5 times slower. With this class on the class path the
 * lookup succeeds and answers what the native library says. {@link io.lgc4j.core.compute.LayerHelpers} turns the
 * helpers on; nothing else in LGC4J uses this class.
 *
 * <p>It holds only what DL4J's reflection calls by name ({@code getInstance}, {@code isUseMKLDNN},
 * {@code setUseMKLDNN}, {@code helpersAllowed}, {@code allowHelpers}). Remove it when the pinned DL4J looks up the
 * new name.
 */
public final class Nd4jCpu {
    private Nd4jCpu() {
    }

    /**
     * The old name of ND4J's native environment, forwarding to the new one by reflection: the ND4J backend is the
     * application's choice, so this module cannot link against the CPU backend's class. Without that class (another
     * backend) it answers as a backend without oneDNN would.
     */
    public static final class Environment {
        private static final String TARGET = "org.nd4j.linalg.cpu.nativecpu.bindings.Nd4jCpu$Environment";
        private static final Environment INSTANCE = new Environment();

        private Environment() {
        }

        /** @return the one instance, as the native class has */
        public static Environment getInstance() {
            return INSTANCE;
        }

        /** @return whether the native library was built with oneDNN and uses it */
        public boolean isUseMKLDNN() {
            return (Boolean) call("isUseONEDNN", false);
        }

        /** @param use whether the native library may use oneDNN */
        public void setUseMKLDNN(boolean use) {
            call("setUseONEDNN", null, use);
        }

        /** @return whether native platform helpers are allowed at all */
        public boolean helpersAllowed() {
            return (Boolean) call("helpersAllowed", false);
        }

        /** @param allow whether native platform helpers are allowed */
        public void allowHelpers(boolean allow) {
            call("allowHelpers", null, allow);
        }

        private static Object call(String method, Object absent, boolean... argument) {
            Class<?> target;
            try {
                target = Class.forName(TARGET, true, Environment.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                return absent;
            }
            try {
                Object instance = target.getMethod("getInstance").invoke(null);
                return argument.length == 0 ? target.getMethod(method).invoke(instance)
                        : target.getMethod(method, boolean.class).invoke(instance, argument[0]);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("ND4J's " + TARGET + " has no " + method + "(): not the ND4J"
                        + " 1.0.0-M2.1 this forwarding class was written for", e);
            }
        }
    }
}
