package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.runner.Provenance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything a table or figure command writes besides its PNGs: {@code table.md} (title, how it was made, the table,
 * the figures, what it shows), {@code table.csv} and {@code provenance.json} (the code, the machine, the suite file
 * and its SHA-256, the profile, and every run with its directory and whether it was reused).
 *
 * @param suite    the suite
 * @param profile  the profile run
 * @param command  the command line that makes it, e.g. {@code lgc table compression --quick}
 * @param intro    paragraphs before the table
 * @param table    the table
 * @param figures  PNG file names in the output directory, each with a caption
 * @param findings paragraphs after the table (what it shows, computed from the numbers)
 */
public record Report(Suite suite, Suite.Profile profile, String command, List<String> intro, Table table,
                     Map<String, String> figures, List<String> findings) {

    /** Writes table.md, table.csv and provenance.json into {@code out}. */
    public void write(Path out, List<SuiteRuns.Finished> runs, Map<String, Object> extraProvenance)
            throws IOException {
        Files.createDirectories(out);
        table.writeCsv(out.resolve("table.csv"));
        StringBuilder md = new StringBuilder("# ").append(suite.title()).append("\n\n");
        md.append("Made by `").append(command).append("` from `").append(suite.file()).append("` (")
                .append(profile.name().toLowerCase(Locale.ROOT)).append(" profile); provenance in"
                + " `provenance.json`, every run's files under `runs/`.\n\n");
        for (String p : intro) {
            md.append(p).append("\n\n");
        }
        md.append(table.markdown()).append('\n');
        for (Map.Entry<String, String> f : figures.entrySet()) {
            md.append("![").append(f.getValue()).append("](").append(f.getKey()).append(")\n\n");
        }
        for (String p : findings) {
            md.append(p).append("\n\n");
        }
        Files.writeString(out.resolve("table.md"), md.toString().stripTrailing() + "\n", StandardCharsets.UTF_8);

        Map<String, Object> provenance = new LinkedHashMap<>();
        provenance.put("command", command);
        provenance.put("suite", suite.file().toString());
        provenance.put("suiteSha256", sha256(suite.file()));
        provenance.put("profile", profile.name().toLowerCase(Locale.ROOT));
        provenance.putAll(Provenance.collect(suite.file().toString(), seedOf(runs)));
        List<Map<String, Object>> listed = new ArrayList<>();
        for (SuiteRuns.Finished r : runs) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("method", r.planned().methodId());
            e.put("model", r.planned().model());
            e.put("directory", out.relativize(r.directory()).toString());
            e.put("reused", r.reused());
            listed.add(e);
        }
        provenance.put("runs", listed);
        provenance.putAll(extraProvenance);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(
                out.resolve("provenance.json").toFile(), provenance);
    }

    private static long seedOf(List<SuiteRuns.Finished> runs) {
        return runs.isEmpty() ? 0 : runs.get(0).planned().config().run().seed();
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
