/** Runs YAML-configured experiments and writes their result directories with provenance. */
package io.lgc4j.runner;
