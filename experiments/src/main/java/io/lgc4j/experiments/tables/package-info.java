/**
 * The paper's tables and figures (seeds/003 Tables V–VI, Figs. 3–4, 13, 14), one command each: a {@link
 * io.lgc4j.experiments.tables.Suite} read and checked whole by {@link io.lgc4j.experiments.tables.SuiteLoader}, its
 * runs trained or reused by {@link io.lgc4j.experiments.tables.SuiteRuns}, and a builder per table or figure that
 * reads the runs' files back and writes table.md, table.csv, PNGs ({@link io.lgc4j.experiments.tables.Charts}) and
 * provenance.json ({@link io.lgc4j.experiments.tables.Report}).
 */
package io.lgc4j.experiments.tables;
