/**
 * The paper's tables and figures (seeds/003 Tables V–VI, Figs. 3–4, 13, 14), one command each: a {@link
 * io.lgc4j.cli.tables.Suite} read and checked whole by {@link io.lgc4j.cli.tables.SuiteLoader}, its
 * runs trained or reused by {@link io.lgc4j.cli.tables.SuiteRuns}, and a builder per table or figure that
 * reads the runs' files back and writes table.md, table.csv, PNGs ({@link io.lgc4j.cli.tables.Charts}) and
 * provenance.json ({@link io.lgc4j.cli.tables.Report}).
 */
package io.lgc4j.cli.tables;
