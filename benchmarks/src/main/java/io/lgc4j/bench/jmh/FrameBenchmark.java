package io.lgc4j.bench.jmh;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A dense gradient frame ({@link FloatFrames}, {@link FrameCodec}) of {@code payloadBytes} bytes of float32 values:
 * encoding (copy into the frame, header, CRC32C) and decoding (every header field and the CRC checked, then the floats
 * copied out).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class FrameBenchmark {

    /** Seed of the values. */
    static final long SEED = 20_240_601L;
    /** The step the frames carry. */
    static final int STEP = 7;

    /** Payload size: 64 KB and 1 MB of floats. */
    @Param({"65536", "1048576"})
    int payloadBytes;

    float[] values;
    float[] received;
    byte[] wire;

    /** Draws the values and encodes them once for {@link #decode}. */
    @Setup
    public void setUp() {
        Random random = new Random(SEED);
        values = new float[payloadBytes / 4];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian();
        }
        received = new float[values.length];
        wire = encode();
    }

    /** Seals a VALUES frame around the floats. */
    @Benchmark
    public byte[] encode() {
        return FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES, Stage.FULL, STEP);
    }

    /** Checks the frame and copies its floats out. */
    @Benchmark
    public float[] decode() {
        Frame frame = FrameCodec.decode(wire);
        FloatFrames.copyInto(frame, received, 0, received.length);
        return received;
    }
}
