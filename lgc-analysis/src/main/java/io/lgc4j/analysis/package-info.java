/**
 * The information analysis of the paper's Section III (Figs 3–4): how much of one rank's layer gradient another
 * rank's gradient of the same layer at the same iteration already tells. {@link io.lgc4j.analysis.Quantizer}
 * turns gradient values into symbols, {@link io.lgc4j.analysis.HistogramInformation} estimates entropies and
 * mutual information from their histograms (with a shuffled control for the estimator's bias), and
 * {@link io.lgc4j.analysis.GradientInformationProbe} runs data-parallel training on any DL4J model and applies
 * the estimator layer by layer.
 */
package io.lgc4j.analysis;
