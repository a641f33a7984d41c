package io.lgc4j.spark;

import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The estimator's two input columns as the tasks read them: the features (a Spark ML {@link Vector} or an array of
 * double or float, {@code width} values) and the label (a class index, or a one-hot vector or array of
 * {@code numClasses} values). The schema is checked on the driver; every row is checked once, in the job that
 * counts the partitions, so the barrier stage meets no bad row.
 *
 * @param features     the features column's name
 * @param featureKind  how it holds its values
 * @param width        the values per row, or -1 when the model does not say (then the rows must agree)
 * @param label        the label column's name
 * @param labelKind    how it holds its label
 * @param numClasses   the classes (the model's output width)
 */
record Columns(String features, Kind featureKind, int width, String label, Kind labelKind, int numClasses)
        implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String FEATURE_TYPES = "a vector (org.apache.spark.ml.linalg.Vector), array<double> or array<float>";
    static final String LABEL_TYPES = "a class index (a number) or a one-hot vector, array<double> or array<float>";

    /** How a column holds its values. */
    enum Kind {
        /** A Spark ML vector. */
        VECTOR,
        /** {@code array<double>} or {@code array<float>}. */
        ARRAY,
        /** A number: a class index. */
        NUMBER
    }

    /** These columns with the features' width now known. */
    Columns withWidth(int newWidth) {
        return new Columns(features, featureKind, newWidth, label, labelKind, numClasses);
    }

    /**
     * The kind of the features column.
     *
     * @param param the estimator's parameter naming it, for the message
     * @throws IllegalArgumentException when the column is missing or has another type
     */
    static Kind featureKind(StructType schema, String column, String param) {
        DataType type = field(schema, column, param).dataType();
        Kind kind = vectorOrArray(type);
        if (kind == null) {
            throw new IllegalArgumentException("column '" + column + "' (" + param + ") holds " + type.simpleString()
                    + ", expected " + FEATURE_TYPES);
        }
        return kind;
    }

    /** The kind of the label column: a number, or a one-hot vector or array. */
    static Kind labelKind(StructType schema, String column, String param) {
        DataType type = field(schema, column, param).dataType();
        if (type instanceof NumericType) {
            return Kind.NUMBER;
        }
        Kind kind = vectorOrArray(type);
        if (kind == null) {
            throw new IllegalArgumentException("column '" + column + "' (" + param + ") holds " + type.simpleString()
                    + ", expected " + LABEL_TYPES);
        }
        return kind;
    }

    /** The size a vector column's ML attributes declare (VectorAssembler's), or -1. */
    static int declaredSize(StructType schema, String column) {
        StructField f = schema.apply(column);
        return SQLDataTypes.VectorType().equals(f.dataType()) ? AttributeGroup.fromStructField(f).size() : -1;
    }

    static StructField field(StructType schema, String column, String param) {
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("the DataFrame has no column '" + column + "' (" + param + "); its"
                    + " columns are " + Arrays.toString(schema.fieldNames()));
        }
        return schema.apply(column);
    }

    private static Kind vectorOrArray(DataType type) {
        if (SQLDataTypes.VectorType().equals(type)) {
            return Kind.VECTOR;
        }
        if (type instanceof ArrayType a && (a.elementType().equals(DataTypes.DoubleType)
                || a.elementType().equals(DataTypes.FloatType))) {
            return Kind.ARRAY;
        }
        return null;
    }

    /** The values of a vector or array cell; null for a null cell. */
    private static int size(Object cell, Kind kind) {
        if (kind == Kind.VECTOR) {
            return ((Vector) cell).size();
        }
        // Spark gives an array column's cell as a Scala Seq; a Row built in Java may hold a List
        return cell instanceof scala.collection.Seq<?> seq ? seq.length() : ((List<?>) cell).size();
    }

    private static float value(Object cell, Kind kind, int i) {
        if (kind == Kind.VECTOR) {
            return (float) ((Vector) cell).apply(i);
        }
        Object v = cell instanceof scala.collection.Seq<?> seq ? seq.apply(i) : ((List<?>) cell).get(i);
        return ((Number) v).floatValue();
    }

    /**
     * What is wrong with a row of columns (features, label), or null; {@code width} is this partition's width so
     * far when {@link #width()} is -1.
     */
    String problem(Row row, int index, int partition, int rowWidth) {
        String where = " in row " + index + " of partition " + partition;
        Object f = row.get(0);
        if (f == null) {
            return "column '" + features + "' (featuresCol) is null" + where;
        }
        int n = size(f, featureKind);
        if (n != rowWidth) {
            return "column '" + features + "' (featuresCol) holds " + n + " value" + (n == 1 ? "" : "s") + where
                    + ", expected " + rowWidth + (width > 0 ? ": the model's input width"
                    : ": the width of this partition's first row");
        }
        Object l = row.get(1);
        if (l == null) {
            return "column '" + label + "' (labelCol) is null" + where;
        }
        if (labelKind == Kind.NUMBER) {
            double c = ((Number) l).doubleValue();
            if (c != Math.rint(c) || c < 0 || c >= numClasses) {
                return "column '" + label + "' (labelCol) holds " + l + where + ", expected a class index 0.."
                        + (numClasses - 1) + " (numClasses " + numClasses + ")";
            }
        } else if (size(l, labelKind) != numClasses) {
            return "column '" + label + "' (labelCol) holds " + size(l, labelKind) + " values" + where + ", expected "
                    + numClasses + ": numClasses (a one-hot label)";
        }
        return null;
    }

    /** The width of a row's features (a row {@link #problem} accepted or will check). */
    int widthOf(Row row) {
        Object f = row.get(0);
        return f == null ? -1 : size(f, featureKind);
    }

    /** What a task does with each row of its partition, in order, once the row is checked. */
    @FunctionalInterface
    interface RowAction {
        /** Takes the row numbered {@code index} in its partition. */
        void accept(Row row, int index) throws IOException;
    }

    /**
     * Hands the {@code rows} rows of a partition to {@code action}, in the partition's order, each checked again
     * ({@link #problem}) against what was counted before training.
     *
     * @throws IllegalStateException when the partition holds another number of rows than counted, or a row that
     *                               was not there when they were counted
     */
    void forEachRow(Iterator<Row> partitionRows, int rows, int partition, RowAction action) throws IOException {
        int n = 0;
        while (partitionRows.hasNext()) {
            Row row = partitionRows.next();
            if (n == rows) {
                throw new IllegalStateException("partition " + partition + " holds more rows than the " + rows
                        + " counted before training: the DataFrame must give the same rows every time it is read"
                        + " (cache or checkpoint a nondeterministic one)");
            }
            String problem = problem(row, n, partition, width);
            if (problem != null) {
                throw new IllegalStateException(problem + " (the DataFrame changed since its rows were counted)");
            }
            action.accept(row, n);
            n++;
        }
        if (n != rows) {
            throw new IllegalStateException("partition " + partition + " holds " + n + " rows, " + rows + " were"
                    + " counted before training: the DataFrame must give the same rows every time it is read (cache"
                    + " or checkpoint a nondeterministic one)");
        }
    }

    /** Puts the {@link #width()} features of a checked row, as float32, into {@code x} from {@code offset}. */
    void features(Row row, float[] x, int offset) {
        Object f = row.get(0);
        for (int i = 0; i < width; i++) {
            x[offset + i] = value(f, featureKind, i);
        }
    }

    /** True when the label column holds a class index ({@link #classOf}), false when a one-hot vector or array. */
    boolean classIndexLabels() {
        return labelKind == Kind.NUMBER;
    }

    /** The class index of a checked row whose label column holds a number. */
    int classOf(Row row) {
        return (int) ((Number) row.get(1)).doubleValue();
    }

    /** Puts the {@link #numClasses()} values of a checked row's one-hot label into {@code y} from {@code offset}. */
    void oneHot(Row row, float[] y, int offset) {
        Object l = row.get(1);
        for (int c = 0; c < numClasses; c++) {
            y[offset + c] = value(l, labelKind, c);
        }
    }

    /** The features of {@code rows} rows whose features column is {@code column} of each, as a batch. */
    static float[] features(List<Row> rows, int column, Kind kind, int width) {
        float[] x = new float[rows.size() * width];
        for (int r = 0; r < rows.size(); r++) {
            Object f = rows.get(r).get(column);
            if (f == null || size(f, kind) != width) {
                throw new IllegalArgumentException("a row's features hold " + (f == null ? "null" : size(f, kind)
                        + " values") + ", expected " + width + ": the model's input width");
            }
            for (int i = 0; i < width; i++) {
                x[r * width + i] = value(f, kind, i);
            }
        }
        return x;
    }
}
