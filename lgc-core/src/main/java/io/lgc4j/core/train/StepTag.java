package io.lgc4j.core.train;

import io.lgc4j.core.stage.Stage;

/**
 * The step and stage stamped on every frame an exchange sends.
 *
 * @param step  0-based global step
 * @param stage the step's stage
 */
public record StepTag(int step, Stage stage) {
}
