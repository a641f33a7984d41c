import io.lgc4j.lgc.autoencoder.*;
import io.lgc4j.experiments.bench.CompactVectorFile;
import java.nio.file.Path;

/** PS: per-rank relative error of D_k(common latent, innovation) on held-out recorded steps; with/without exact innovation; zero-decoder baselines. */
public class PsInnovationCheck {
    public static void main(String[] a) throws Exception {
        var rec = CompactVectorFile.readAll(Path.of("/tmp/aerun/results/compact-vectors.bin"));
        int mu = rec.header().mu(), K = rec.header().ranks();
        double l2 = Double.parseDouble(a[0]);
        int train = Integer.parseInt(a[1]);
        PsAutoencoder ae = new PsAutoencoder(AutoencoderSpec.PAPER, mu, K, 0.1, AeTraining.DEFAULT.withLambdaSim(l2), 42);
        var steps = rec.steps();
        var rnd = new java.util.SplittableRandom(42);
        for (int s = 0; s < train; s++) ae.trainStep(steps.get(s).compacts(), steps.get(s).leader());
        double eDec = 0, eOver = 0, eInn = 0, eMeanDec = 0, eMeanOver = 0, eMeanInn = 0, cosM = 0; int n = 0;
        for (int s = train; s < steps.size(); s++) {
            var st = steps.get(s);
            int lead = st.leader();
            float scale = Scale.rms(st.compacts()[lead]);
            float[] z = ae.encode(st.compacts()[lead], scale);
            double[] mTruth = new double[mu], mDec = new double[mu], mOver = new double[mu], mInn = new double[mu];
            for (int k = 0; k < K; k++) {
                float[] g = st.compacts()[k];
                float[] inn = ae.innovation(g);
                float[] r = ae.decode(k, z, inn, scale);
                double tt = 0, ed = 0, eo = 0, ei = 0;
                for (int i = 0; i < mu; i++) {
                    double over = inn[i] != 0 ? inn[i] : r[i];
                    tt += g[i] * g[i]; ed += (r[i] - g[i]) * (r[i] - g[i]); eo += (over - g[i]) * (over - g[i]); ei += (inn[i] - g[i]) * (inn[i] - g[i]);
                    mTruth[i] += g[i] / K; mDec[i] += r[i] / K; mOver[i] += over / K; mInn[i] += inn[i] / K;
                }
                eDec += ed / tt; eOver += eo / tt; eInn += ei / tt; n++;
            }
            double tt = 0, a1 = 0, a2 = 0, a3 = 0, dot = 0, rr = 0;
            for (int i = 0; i < mu; i++) { tt += mTruth[i]*mTruth[i]; a1 += sq(mDec[i]-mTruth[i]); a2 += sq(mOver[i]-mTruth[i]); a3 += sq(mInn[i]-mTruth[i]); dot += mOver[i]*mTruth[i]; rr += mOver[i]*mOver[i]; }
            eMeanDec += a1/tt; eMeanOver += a2/tt; eMeanInn += a3/tt; cosM += dot/Math.sqrt(rr*tt);
        }
        int m = steps.size() - train;
        System.out.printf("lambda2 %.2f train %d per-rank rel.err: decoder %.3f, decoder+exact innovation %.3f, innovation only %.3f%n", l2, train, eDec/n, eOver/n, eInn/n);
        System.out.printf("  mean over ranks rel.err: decoder %.3f, decoder+exact innovation %.3f (cos %.3f), innovation only %.3f%n", eMeanDec/m, eMeanOver/m, cosM/m, eMeanInn/m);
    }
    static double sq(double x) { return x * x; }
}
