// The cloud service devices sync with, and the device side of its protocol in TypeScript.
export { startCloud, issueCredentials, apiToken, isLoopback } from './service';
export type { Cloud, CloudOptions, DeviceCredentials } from './service';
export { DeviceClient, FileStorage, MemoryStorage } from './deviceClient';
export type { DeviceClientOptions, DeviceStorage, LogRecord, ReceivedMessage, SyncResult } from './deviceClient';
export { openStore } from './store';
export type { CloudStore, DeviceRecord, StoredEvent, VariableRecord, MessageRecord, EventQuery, EventPage, PruneResult } from './store';
export * from './protocol';
export { encodeCbor, decodeCbor, checkWellFormed, CborError } from './cbor';
export type { JsonValue } from './cbor';
export { writeMosquittoConfig, SERVICE_USER } from './mosquitto';
