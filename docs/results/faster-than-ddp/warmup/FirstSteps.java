import io.lgc4j.core.compute.LayerHelpers;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.zoo.ModelZoo;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * The first forward and backward passes of LeNet-5 (batch 32) on LGC4J's default compute path (oneDNN helpers,
 * CacheMode.HOST, one thread), each with its wall time, the training thread's CPU, the JIT's compilation time and the
 * classes loaded meanwhile; then the median pass of the second half. Run it as lgc launch runs a rank at 0.4 cores:
 *
 * <pre>
 *   javac -cp "experiments/target/lgc.jar:experiments/target/lib/*" -d /tmp/fs docs/results/faster-than-ddp/warmup/FirstSteps.java
 *   G=/sys/fs/cgroup/cpu/first-steps; mkdir $G; echo 100000 > $G/cpu.cfs_period_us; echo 40000 > $G/cpu.cfs_quota_us
 *   sh -c "echo \$\$ > $G/cgroup.procs; exec env OMP_NUM_THREADS=1 java -XX:TieredStopAtLevel=1 \
 *       -XX:CompileThresholdScaling=0.01 -cp '/tmp/fs:experiments/target/lgc.jar:experiments/target/lib/*' FirstSteps 20"
 *   rmdir $G
 * </pre>
 * Other JITs: another {@code -XX:CompileThresholdScaling}, or another JDK's {@code java} (jit-scan.txt).
 * {@code -DforwardFirst} runs one forward pass of an evaluation batch (128) first, as an evaluation before step 0 would.
 */
public class FirstSteps {
    public static void main(String[] args) {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Nd4jThreads.use(1);
        MultiLayerNetwork built = ModelZoo.smallCnn(42L, ModelZoo.defaultUpdater());
        MultiLayerNetwork net = LayerHelpers.build(true, built::clone);
        net.getLayerWiseConfigurations().setCacheMode(CacheMode.HOST);
        net.setCacheMode(CacheMode.HOST);
        Nd4j.getRandom().setSeed(1);
        INDArray x = Nd4j.rand(DataType.FLOAT, 32, 1, 28, 28);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 32, 10);
        for (int i = 0; i < 32; i++) {
            y.putScalar(i, i % 10, 1f);
        }
        ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (System.getProperty("forwardFirst") != null) {
            long start = System.nanoTime();
            net.output(Nd4j.rand(DataType.FLOAT, 128, 1, 28, 28), false);
            System.out.printf("forward pass of 128 first: %.1f ms%n", (System.nanoTime() - start) / 1e6);
        }
        long[] wall = new long[passes];
        for (int p = 0; p < passes; p++) {
            long loaded = classes.getTotalLoadedClassCount();
            long compiling = jit.getTotalCompilationTime();
            long cpu = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            net.setInput(x);
            net.setLabels(y);
            net.computeGradientAndScore();
            wall[p] = System.nanoTime() - start;
            if (List.of(1, 20, 100, 300).contains(p + 1)) {
                long sum = 0;
                for (int q = 0; q <= p; q++) {
                    sum += wall[q];
                }
                System.out.printf("cumulative after %d passes: %.0f ms%n", p + 1, sum / 1e6);
            }
            if (p < 5) {
                System.out.printf("pass %d: %.1f ms wall, %.1f ms of the thread's CPU, %d classes loaded, %d ms"
                        + " compiling%n", p, wall[p] / 1e6, (threads.getCurrentThreadCpuTime() - cpu) / 1e6,
                        classes.getTotalLoadedClassCount() - loaded, jit.getTotalCompilationTime() - compiling);
            }
        }
        java.util.Arrays.sort(wall, passes / 2, passes);
        System.out.printf("median of the second half: %.1f ms%n", wall[passes / 2 + passes / 4] / 1e6);
    }
}
