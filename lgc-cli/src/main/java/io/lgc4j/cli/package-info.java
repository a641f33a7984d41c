/** The {@code lgc} command line (picocli): {@code run}, {@code bench} and {@code record}. */
package io.lgc4j.cli;
