/** The flattened parameter/gradient vector of a DL4J model cut into parameter blocks, each with its policy. */
package io.lgc4j.core.layout;
