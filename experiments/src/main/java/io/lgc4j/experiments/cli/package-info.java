/** The {@code lgc} command line (picocli): {@code run} and {@code bench}. */
package io.lgc4j.experiments.cli;
