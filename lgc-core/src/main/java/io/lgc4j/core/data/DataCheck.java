package io.lgc4j.core.data;

import java.util.Locale;

/**
 * How much of the training data every rank reads before step 0, so that a bad row (a field that is not a number, a
 * label out of range, a short row) fails the run before it trains instead of when its batch comes, hours in. Each
 * worker rank checks its own contiguous share of the rows ({@link DataSource#check}), all ranks at once.
 *
 * <pre>{@code
 * DistributedTrainer.builder().data(CsvSource.in(dir).label(64, 10)).checkData(DataCheck.FULL)...   // the default
 * }</pre>
 */
public enum DataCheck {
    /** Every row of the rank's share. */
    FULL,
    /** About one row in a hundred of the rank's share, evenly spaced, at least its first 1,000 and its last. */
    SAMPLE,
    /** Nothing: a bad row fails the run when its batch is read. */
    NONE;

    /**
     * @param key   where it was given, for the message ("data.check")
     * @param value {@code full}, {@code sample} or {@code none}, any case
     * @throws IllegalArgumentException naming the key, the value and what is allowed
     */
    public static DataCheck parse(String key, String value) {
        String v = value == null ? "" : value.strip().toUpperCase(Locale.ROOT);
        for (DataCheck c : values()) {
            if (c.name().equals(v)) {
                return c;
            }
        }
        throw new IllegalArgumentException(key + " must be full, sample or none, found '" + value + "'");
    }

    /** @return the name as a config spells it: {@code full}, {@code sample}, {@code none} */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
