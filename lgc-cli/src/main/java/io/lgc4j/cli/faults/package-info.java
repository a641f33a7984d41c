/**
 * The fault campaign's own program ({@link io.lgc4j.cli.faults.FaultProgram}): a user's program with a fault
 * it can inject itself, started by {@code scripts/fault-campaign.py} through {@code lgc launch}.
 */
package io.lgc4j.cli.faults;
