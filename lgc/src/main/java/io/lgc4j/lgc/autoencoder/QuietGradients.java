package io.lgc4j.lgc.autoencoder;

import org.nd4j.autodiff.samediff.SameDiff;

import java.io.PrintStream;

/**
 * Builds a SameDiff graph's gradient function without SameDiff's console noise.
 *
 * <p>ND4J 1.0.0-M2.1's {@code SameDiff.createGradFunction} prints one line per differentiated op,
 * {@code Added differentiated op <name>}, with a bare {@code System.out.println} (no logger, no setting; ~35 lines for
 * an autoencoder's training graph). {@link #build} runs it with {@code System.out} replaced by a stream that drops
 * exactly those lines and passes everything else, from any thread, through to the stream it replaced; the original
 * is restored afterwards.
 */
final class QuietGradients {

    /** The start of the line SameDiff prints per differentiated op. */
    static final String NOISE = "Added differentiated op ";

    private static final Object LOCK = new Object();

    private QuietGradients() {
    }

    /** Creates {@code sd}'s gradient function (what {@code calculateGradients} would do on first use), quietly. */
    static void build(SameDiff sd) {
        synchronized (LOCK) {
            PrintStream original = System.out;
            PrintStream filter = new Filter(original);
            System.setOut(filter);
            try {
                sd.createGradFunction();
            } finally {
                if (System.out == filter) {
                    System.setOut(original);
                }
            }
        }
    }

    /** Passes everything to {@code target} except SameDiff's per-op lines. */
    private static final class Filter extends PrintStream {
        private final PrintStream target;

        Filter(PrintStream target) {
            super(target, true);
            this.target = target;
        }

        @Override
        public void println(String line) {
            if (line != null && line.startsWith(NOISE)) {
                return;
            }
            target.println(line);
        }
    }
}
