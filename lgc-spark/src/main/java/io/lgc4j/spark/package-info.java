/** Runs an LGC4J job as the tasks of one Spark barrier stage. */
package io.lgc4j.spark;
