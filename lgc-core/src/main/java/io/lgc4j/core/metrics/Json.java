package io.lgc4j.core.metrics;

import java.util.Map;
import java.util.TreeMap;

/** The little JSON the trace files need, written by hand so that the core module takes no JSON library. */
final class Json {
    private Json() {
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /** Microseconds with three decimals (nanosecond resolution). */
    static void micros(StringBuilder b, double micros) {
        long thousandths = Math.round(micros * 1_000);
        if (thousandths < 0) {
            b.append('-');
            thousandths = -thousandths;
        }
        b.append(thousandths / 1_000).append('.');
        long frac = thousandths % 1_000;
        b.append(frac < 100 ? frac < 10 ? "00" : "0" : "").append(frac);
    }

    /** An object with its keys sorted, so that a trace of two runs reads alike. */
    static void object(StringBuilder b, Map<String, ?> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, ?> e : new TreeMap<>(map).entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            string(b, e.getKey());
            b.append(':');
            value(b, e.getValue());
        }
        b.append('}');
    }

    static void value(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                b.append("null");
            } else {
                b.append(d);
            }
        } else if (v instanceof Float f) {
            value(b, f.doubleValue());
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, ?> inner = (Map<String, ?>) m;
            object(b, inner);
        } else {
            string(b, v.toString());
        }
    }
}
