package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A finished run of the PyTorch DDP peer ({@code ddp_peer.py}) under one link setting: its directory holds
 * {@code command.txt} (what ran), {@code evals.jsonl} (rank 0's record per evaluation: step, wall_s, train_s,
 * test_accuracy, bytes_sent_per_rank) and {@code summary.json} (its closing line: accuracy, compute and exposed
 * communication per step, bytes per rank).
 *
 * @param peer      which peer method
 * @param directory its files
 * @param reused    true when it had finished before this invocation
 */
public record PeerRun(TimeToAccuracySettings.Peer peer, Path directory, boolean reused) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Its summary line. */
    public JsonNode summary() throws IOException {
        return JSON.readTree(Files.readString(directory.resolve("summary.json"), StandardCharsets.UTF_8));
    }

    /** Its evaluation records, in order. */
    public List<JsonNode> evaluations() throws IOException {
        List<JsonNode> records = new ArrayList<>();
        for (String line : Files.readAllLines(directory.resolve("evals.jsonl"), StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                records.add(JSON.readTree(line));
            }
        }
        return records;
    }
}
