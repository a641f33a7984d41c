import io.lgc4j.lgc.autoencoder.*;
import io.lgc4j.experiments.bench.CompactVectorFile;
import java.nio.file.Path;

/** The check of docs/results/lgc/README.md: what the ring autoencoder decodes on the recorded compact vectors. */
public class DecodedMeanCheck {
    public static void main(String[] a) throws Exception {
        var rec = CompactVectorFile.readAll(Path.of("/tmp/aerun/results/compact-vectors.bin"));
        int mu = rec.header().mu(), K = rec.header().ranks();
        RingAutoencoder ae = new RingAutoencoder(AutoencoderSpec.PAPER, mu, K, AeTraining.DEFAULT, 42);
        var steps = rec.steps();
        for (int s = 0; s < 250; s++) ae.trainStep(steps.get(s).compacts(), steps.get(s).leader());
        double[] sumRec = new double[mu];
        for (int s = 250; s < 300; s++) {
            var st = steps.get(s);
            float scale = Scale.rms(st.compacts()[st.leader()]);
            float[] mean = new float[ae.latentSize()];
            for (int k = 0; k < K; k++) { float[] z = ae.encode(st.compacts()[k], scale); for (int i = 0; i < z.length; i++) mean[i] += z[i] / K; }
            float[] r = ae.decode(mean, scale);
            double m = 0, rr = 0, tt = 0, dot = 0, err = 0;
            for (int i = 0; i < mu; i++) {
                double t = 0; for (int k = 0; k < K; k++) t += st.compacts()[k][i] / K;
                m += r[i]; rr += r[i] * r[i]; tt += t * t; dot += r[i] * t; err += (r[i] - t) * (r[i] - t);
                sumRec[i] += r[i] / scale;
            }
            if (s % 10 == 0) System.out.printf("step %d scale %.3g rec mean/rms %.3f |rec|/|truth| %.3f cos %.3f rel.err %.3f%n", s, scale, m / mu / Math.sqrt(rr / mu), Math.sqrt(rr / tt), dot / Math.sqrt(rr * tt), err / tt);
        }
        // consistency of rec/scale across the 50 steps: |mean of rec/scale| vs rms of rec/scale
        double ms = 0; for (double v : sumRec) ms += (v / 50) * (v / 50);
        System.out.printf("rms over positions of the 50-step mean of rec/scale: %.4f%n", Math.sqrt(ms / mu));
    }
}
