/** Server roles of the parameter-server topology. */
package io.lgc4j.ps.server;
