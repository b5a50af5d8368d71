/*
 * sim_listen.h: `beacon-sim --listen`, a long-lived simulated device that takes apps over SMP.
 *
 *   beacon-sim --listen [--udp-port N] [--no-udp] [--no-pty] [--baud N] [--flash DIR]
 *                       [--trust KEY.pub]... [--trace FILE] [--utc MS | --no-utc] [--heap BYTES]
 *                       [--virtual] [--control] [--idle-ms N] [app.bapp]
 *
 * One world device (d0, the default profile) serves SMP (rt_smp.h) as a Zephyr device does: over
 * UDP on 127.0.0.1 (one SMP packet per datagram; port 1337 by default, 0 for any free one) and
 * over a pseudo-terminal with the SMP serial framing (rt_smp_serial.h). When it is ready it prints
 * on stdout, in this order:
 *
 *   pty: /dev/pts/7
 *   udp: 127.0.0.1:1337
 *   ready
 *
 * and then the app's print() lines, one per line, as `beacon run` does. The runtime's messages
 * (installs, refusals, failures) go to stderr; the trace (--trace) is written one JSON line per
 * record and flushed at once, so a tool can follow it while the device runs. print() lines also go
 * to the pseudo-terminal between SMP frames, as a device's UART console would carry them (dropped
 * while nobody reads it).
 *
 * Uploads land in the staging slot of the device's app store (rt_app_store.h, as on the device)
 * and install goes through the project's SMP group: the staged package is verified
 * (rt_package_check: layout, CRC, engine, API version; rt_signature_check against the --trust
 * keys) before anything is touched; only then does the store switch to it, the running app stop
 * and the new one start where the store holds it (world_install). A refused
 * or interrupted upload leaves the running app, its timers and its storage as they were. A package
 * that passes but whose top level throws is installed all the same (as on the device: it was
 * verified, the old app is gone) and the answer says so: "installed, but the app failed while
 * starting: ...", with the SMP error of a refusal so that the uploader exits 1.
 *
 * With --flash DIR the device keeps its flash between runs: the storage partition in DIR/d0.flash
 * (as `beacon-sim --flash`) and the app store's two slots in DIR/d0.apps.flash (saved after each
 * install). At start, a package given on the command line is installed into the store as an
 * upload would be (refused: the store's app runs on); without one, the store's app runs again.
 * (A DIR/d0.bapp kept before the store existed is installed into an empty store.)
 *
 * Device time runs at wall-clock speed. With --virtual it stands still until the control channel
 * advances it. --control reads commands from stdin, one per line, and ends the device at EOF:
 *
 *   input [+MS] <input> <arguments>   a world-script input (world_script.h) now, or MS from now
 *   advance MS                        (--virtual) run the world MS milliseconds further
 *   sync                              answer "sync <device time ms>" on stderr once everything
 *                                     before it was done
 *   quit
 */
#ifndef SIM_LISTEN_H
#define SIM_LISTEN_H

/* argv[1] is "--listen". Returns the process exit status. */
int sim_listen_main(int argc, char **argv);

#endif /* SIM_LISTEN_H */
