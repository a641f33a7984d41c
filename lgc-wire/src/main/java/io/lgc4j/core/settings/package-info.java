/**
 * Settings as configurations give them: a {@link io.lgc4j.core.settings.ResolvedConfig} (the config's sections as
 * maps), a {@link io.lgc4j.core.settings.Section} that binds one section's keys by component name into a settings
 * record, and the {@link io.lgc4j.core.settings.SettingsException} a record's check throws, naming the key that is
 * wrong. Depends on nothing else of {@code lgc-core}: the compressors, the topologies and the registry all bind their
 * settings through it.
 */
package io.lgc4j.core.settings;
