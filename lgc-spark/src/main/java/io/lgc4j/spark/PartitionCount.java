package io.lgc4j.spark;

import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.Row;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;

/**
 * One partition's rows as the driver's counting job sees them, before the barrier stage: how many, their features'
 * width, and the first row that cannot be trained on.
 *
 * @param partition the partition
 * @param rows      its rows
 * @param width     the features' width of its first row, or -1 when it has none
 * @param problem   what is wrong with its first bad row, or null
 */
record PartitionCount(int partition, long rows, int width, String problem) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The counting job's function: every row of the partition checked by {@link Columns#problem}. */
    record Counter(Columns columns) implements Function2<Integer, Iterator<Row>, Iterator<PartitionCount>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Iterator<PartitionCount> call(Integer partition, Iterator<Row> rows) {
            long n = 0;
            int width = columns.width();
            String problem = null;
            while (rows.hasNext()) {
                Row row = rows.next();
                if (problem == null) {
                    if (width < 0) {
                        width = columns.widthOf(row);
                    }
                    problem = columns.problem(row, (int) Math.min(n, Integer.MAX_VALUE), partition, width);
                }
                n++;
            }
            return List.of(new PartitionCount(partition, n, n == 0 ? -1 : width, problem)).iterator();
        }
    }
}
