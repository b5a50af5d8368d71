// The asset tracker as an LTE beacon runs it in the field: the example's scans and reports
// (examples/asset-tracker.ts, unchanged), and a sync of the queued reports every 15 minutes.
// The end-to-end check on the LTE beacon's two chips runs it (bindings-ts/test/bsimPair.test.ts).
import '../../examples/asset-tracker';

sync.setSyncPeriod('15 min');
