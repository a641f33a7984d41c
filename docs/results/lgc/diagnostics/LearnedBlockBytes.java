import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.sparse.TopK;
import java.util.SplittableRandom;

/**
 * Index bytes per compressible block of the small CNN at 0.1% with the default DEFLATE codec (4-byte length prefix
 * per block, as SparseFrames writes it), averaged over 200 uniformly random supports: how DGC's 771.5 index bytes
 * per step split between the LEARNED blocks (conv2, fc1) and the TOP_K block (the output layer).
 */
public class LearnedBlockBytes {
    public static void main(String[] a) {
        String[] names = {"conv2/W", "conv2/b", "fc1/W", "fc1/b", "out/W", "out/b"};
        int[] n = {25000, 50, 400000, 500, 5000, 10};
        boolean[] learned = {true, true, true, true, false, false};
        IndexCodec codec = IndexCodecs.defaultCodec();
        SplittableRandom r = new SplittableRandom(42);
        double learnedBytes = 0, plainBytes = 0;
        int learnedCount = 0, plainCount = 0;
        for (int b = 0; b < n.length; b++) {
            int k = TopK.countFor(n[b], 0.001);
            double sum = 0;
            int draws = 200;
            for (int d = 0; d < draws; d++) {
                int[] idx = r.ints(0, n[b]).distinct().limit(k).sorted().toArray();
                sum += 4 + codec.encode(idx, k, n[b]).length;
            }
            double mean = sum / draws;
            System.out.printf("%-8s n=%7d k=%4d  %7.1f B (%s)%n", names[b], n[b], k, mean, learned[b] ? "LEARNED" : "TOP_K");
            if (learned[b]) { learnedBytes += mean; learnedCount += k; } else { plainBytes += mean; plainCount += k; }
        }
        System.out.printf("LEARNED: %d indices, %.1f B of indices + %d B of values = %.1f B%n", learnedCount, learnedBytes, 4 * learnedCount, learnedBytes + 4 * learnedCount);
        System.out.printf("TOP_K:   %d indices, %.1f B of indices + %d B of values%n", plainCount, plainBytes, 4 * plainCount);
    }
}
