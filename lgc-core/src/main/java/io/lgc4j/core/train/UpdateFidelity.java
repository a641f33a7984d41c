package io.lgc4j.core.train;

import io.lgc4j.core.compress.OfferTap;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.train.RunReport.Offer;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The diagnostic mode's measurement: how faithfully a step's applied update on the LEARNED blocks carries what the
 * ranks offered. Each rank records its {@link Offer} (the compensated vector its compressor selected from, and the
 * entries it took; in a dense step the gradient itself, all of it taken); rank 0 gathers the K offers and compares
 * the update it applies with their mean {@code m}:
 *
 * <ul>
 *   <li>{@link StepNotes#APPLIED_REL_ERR} ‖a_S − m_S‖ / ‖m_S‖ and {@link StepNotes#APPLIED_COS} cos(a_S, m_S), on
 *       the support S (the union of what the ranks took): how well the method delivers what it chose to send (where ranks choose their own supports, a position some
 *       of them did not take holds their kept values in m and nothing of them in a: that loss counts too);</li>
 *   <li>{@link StepNotes#APPLIED_COS_ALL} cos(a, m) over every LEARNED position: how much of the accumulated
 *       gradient the update follows (what a cheaper choice of support would lose shows here);</li>
 *   <li>{@link StepNotes#OFFER_SHARE} ‖m_S‖ / ‖m‖: the share of the mean's norm the support covers.</li>
 * </ul>
 *
 * A zero vector's cosine is 0; a step whose support or mean is empty records no note it cannot define.
 */
final class UpdateFidelity {

    private final int[] learnedStart; // per block index: where its LEARNED positions start, -1 when not LEARNED
    private final List<ParamBlock> learned;
    private final int length;

    UpdateFidelity(GradientLayout layout) {
        this.learned = layout.blocks(LayerPolicy.LEARNED);
        this.learnedStart = new int[layout.blocks().size()];
        Arrays.fill(learnedStart, -1);
        int n = 0;
        for (ParamBlock b : learned) {
            learnedStart[b.index()] = n;
            n += b.length();
        }
        this.length = n;
    }

    /** Whether the layout has a LEARNED block (else there is nothing to measure). */
    boolean measurable() {
        return length > 0;
    }

    /** A rank's recorder of its offers, to show its exchange ({@link GradientExchange#tap}). */
    Recorder recorder() {
        return new Recorder();
    }

    /**
     * Compares the applied update (the LEARNED positions of {@code applied}, the aggregate the step wrote in the
     * gradient array) with the mean of {@code offers} (one per rank).
     *
     * @return the notes, by name
     */
    Map<String, Double> measure(List<Offer> offers, float[] applied) {
        int k = offers.size();
        double aa = 0;
        double mm = 0;
        double am = 0;
        double aaS = 0;
        double mmS = 0;
        double amS = 0;
        double errS = 0;
        int at = 0;
        for (ParamBlock b : learned) {
            for (int i = 0; i < b.length(); i++, at++) {
                double m = 0;
                boolean inSupport = false;
                for (Offer o : offers) {
                    m += o.values()[at];
                    inSupport |= (o.taken()[at >>> 6] & (1L << at)) != 0;
                }
                m /= k;
                double a = applied[b.offset() + i];
                aa += a * a;
                mm += m * m;
                am += a * m;
                if (inSupport) {
                    aaS += a * a;
                    mmS += m * m;
                    amS += a * m;
                    errS += (a - m) * (a - m);
                }
            }
        }
        Map<String, Double> notes = new TreeMap<>();
        if (mmS > 0) {
            notes.put(StepNotes.APPLIED_REL_ERR, Math.sqrt(errS / mmS));
            notes.put(StepNotes.APPLIED_COS, cosine(amS, aaS, mmS));
        }
        if (mm > 0) {
            notes.put(StepNotes.APPLIED_COS_ALL, cosine(am, aa, mm));
            notes.put(StepNotes.OFFER_SHARE, Math.sqrt(mmS / mm));
        }
        return notes;
    }

    private static double cosine(double ab, double aa, double bb) {
        return aa == 0 || bb == 0 ? 0 : ab / Math.sqrt(aa * bb);
    }

    /**
     * Records one rank's offer of each step: {@link #begin} with the rank's gradient (the offer of a step that
     * compresses nothing), then the compressor's calls, which replace what they cover; {@link #offer} reads it.
     */
    final class Recorder implements OfferTap {
        private final float[] values = new float[length];
        private final long[] taken = new long[(length + 63) >>> 6];
        private boolean shown;

        /** Starts a step: the offer is {@code gradient}'s LEARNED positions, all taken, until the compressor's. */
        void begin(float[] gradient) {
            int at = 0;
            for (ParamBlock b : learned) {
                System.arraycopy(gradient, b.offset(), values, at, b.length());
                at += b.length();
            }
            shown = false;
            Arrays.fill(taken, -1L);
            if ((length & 63) != 0) {
                taken[taken.length - 1] = (1L << length) - 1; // no bit past the end
            }
        }

        @Override
        public void offered(ParamBlock block, float[] from, int start, int[] indices, int count) {
            int at = learnedStart[block.index()];
            if (at < 0) {
                return;
            }
            shown = true;
            System.arraycopy(from, start, values, at, block.length());
            for (int i = at; i < at + block.length(); i++) {
                taken[i >>> 6] &= ~(1L << i);
            }
            for (int j = 0; j < count; j++) {
                int i = at + indices[j];
                taken[i >>> 6] |= 1L << i;
            }
        }

        /** Whether the compressor showed an offer since {@link #begin}. */
        boolean shown() {
            return shown;
        }

        /** This step's offer (copies). */
        Offer offer() {
            return new Offer(values.clone(), taken.clone());
        }
    }
}
