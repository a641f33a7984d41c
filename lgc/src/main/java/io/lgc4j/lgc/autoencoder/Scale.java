package io.lgc4j.lgc.autoencoder;

/**
 * The scale a compact vector is divided by before it enters an autoencoder, and multiplied by after it leaves.
 *
 * <p>Gradients are small numbers (1e-5 to 1e-2) whose size drifts over training; the convolutions' biases and
 * initialization assume inputs of order one. Dividing by the root mean square makes the network see unit-scale
 * signals whatever the layer or the iteration, and the scale travels beside the latent as one float.
 */
public final class Scale {

    private Scale() {
    }

    /**
     * The root mean square of {@code v}, or 1 when {@code v} is all zeros (so dividing by it is harmless).
     *
     * @throws IllegalArgumentException if {@code v} holds a NaN or an infinity
     */
    public static float rms(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        double rms = Math.sqrt(sum / Math.max(1, v.length));
        if (!Double.isFinite(rms)) {
            throw new IllegalArgumentException("the compact vector holds a NaN or an infinity (sum of squares "
                    + sum + "); an autoencoder cannot scale it");
        }
        if (rms == 0) {
            return 1f;
        }
        return (float) rms;
    }
}
