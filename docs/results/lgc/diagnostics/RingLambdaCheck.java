import io.lgc4j.lgc.autoencoder.*;
import io.lgc4j.experiments.bench.CompactVectorFile;
import java.nio.file.Path;

/** Ring autoencoder trained on the first N recorded steps with λ2 given; decoded-mean quality on the rest (docs/results/lgc/README.md). */
public class RingLambdaCheck {
    public static void main(String[] a) throws Exception {
        var rec = CompactVectorFile.readAll(Path.of("/tmp/aerun/results/compact-vectors.bin"));
        int mu = rec.header().mu(), K = rec.header().ranks();
        double l2 = Double.parseDouble(a[0]);
        RingAutoencoder ae = new RingAutoencoder(AutoencoderSpec.PAPER, mu, K, AeTraining.DEFAULT.withLambdaSim(l2), 42);
        var steps = rec.steps();
        int train = Integer.parseInt(a[1]);
        for (int s = 0; s < train; s++) ae.trainStep(steps.get(s).compacts(), steps.get(s).leader());
        double sc = 0, sa = 0, se = 0; int n = 0;
        for (int s = train; s < steps.size(); s++) {
            var st = steps.get(s);
            float scale = Scale.rms(st.compacts()[st.leader()]);
            float[] mean = new float[ae.latentSize()];
            for (int k = 0; k < K; k++) { float[] z = ae.encode(st.compacts()[k], scale); for (int i = 0; i < z.length; i++) mean[i] += z[i] / K; }
            float[] r = ae.decode(mean, scale);
            double rr = 0, tt = 0, dot = 0, err = 0;
            for (int i = 0; i < mu; i++) {
                double t = 0; for (int k = 0; k < K; k++) t += st.compacts()[k][i] / K;
                rr += r[i] * r[i]; tt += t * t; dot += r[i] * t; err += (r[i] - t) * (r[i] - t);
            }
            double cos = dot / Math.sqrt(rr * tt);
            double alpha = Math.max(0, dot / rr);
            sc += cos; sa += alpha; se += err / tt; n++;
            if (s % 10 == 0) System.out.printf("step %d |rec|/|truth| %.3f cos %.3f rel.err %.3f alpha %.3f err-after-alpha %.3f%n", s, Math.sqrt(rr / tt), cos, err / tt, alpha, 1 - Math.max(0,cos)*Math.max(0,cos));
        }
        System.out.printf("lambda2 %.2f train %d: mean cos %.3f mean alpha %.3f mean rel.err %.3f%n", l2, train, sc / n, sa / n, se / n);
    }
}
