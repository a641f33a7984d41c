package io.lgc4j.cli.tables;

/** Which command a suite file feeds; the file's {@code suite:} key must name it. */
public enum SuiteKind {
    /** {@code lgc table compression}: the analog of seeds/003 Table VI. */
    COMPRESSION("compression", true),
    /** {@code lgc table phases}: the analog of Table V. */
    PHASES("phases", true),
    /** {@code lgc figure mutual-information}: the analog of Figs. 3–4; analyses gradients, trains no suite. */
    MUTUAL_INFORMATION("mutual-information", false),
    /** {@code lgc figure sparsification}: the analog of Fig. 13. */
    SPARSIFICATION("sparsification", true),
    /** {@code lgc figure ae-convergence}: the analog of Fig. 14. */
    AE_CONVERGENCE("ae-convergence", true),
    /** {@code lgc table time-to-accuracy}: every method over shaped links, beside the PyTorch peer. */
    TIME_TO_ACCURACY("time-to-accuracy", true);

    private final String spelling;
    private final boolean trainsMethods;

    SuiteKind(String spelling, boolean trainsMethods) {
        this.spelling = spelling;
        this.trainsMethods = trainsMethods;
    }

    /** The name used in suite files, on the command line and for default file names. */
    public String spelling() {
        return spelling;
    }

    /** Whether it reproduces a table ({@code lgc table ...}) rather than a figure ({@code lgc figure ...}). */
    public boolean isTable() {
        return this == COMPRESSION || this == PHASES || this == TIME_TO_ACCURACY;
    }

    /** The command that reads such a suite, e.g. {@code lgc table compression}. */
    public String command() {
        return "lgc " + (isTable() ? "table " : "figure ") + spelling;
    }

    /** Whether the suite lists methods, each trained once per model with the runner. */
    public boolean trainsMethods() {
        return trainsMethods;
    }

    /** The kind spelled {@code name}, or {@code null}. */
    static SuiteKind bySpelling(String name) {
        for (SuiteKind k : values()) {
            if (k.spelling.equals(name)) {
                return k;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return spelling;
    }
}
