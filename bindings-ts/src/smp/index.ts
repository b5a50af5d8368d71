// SMP (MCUmgr) client side: packets, serial framing, transports, upload and install.
export { decodeCbor, encodeCbor, SmpBody } from './cbor';
export { crc16 } from './crc16';
export {
  BeaconCommand,
  decodeHeader,
  decodePacket,
  encodeHeader,
  encodePacket,
  FsCommand,
  Group,
  Op,
  OsCommand,
  SMP_HEADER_SIZE,
  SmpHeader,
  SmpPacket,
  SmpVersion,
  STAGING_NAME,
} from './header';
export { encodeSerial, SERIAL_MAX_FRAME, SerialDecoder, SerialDrop } from './serial';
export { DeviceError, SmpTransport, TransportStats } from './transport';
export { openUdp, SMP_UDP_PORT } from './udp';
export { openSerial } from './serialTransport';
export { BleOptions, loadNoble, NOBLE_MISSING, NOBLE_PACKAGE, openBle, PacketAssembler, SMP_CHARACTERISTIC_UUID, SMP_SERVICE_UUID } from './ble';
export { DeviceSpec, openDevice, parseDevice } from './device';
export { BeaconRc, FsRc, Rc, SmpError, SmpTimeoutError } from './errors';
export { ClientOptions, RequestOptions, SmpClient } from './client';
export {
  chunkSizeFor,
  DEFAULT_BUF_SIZE,
  DeviceParams,
  deviceParams,
  DeviceStatus,
  deviceStatus,
  InstallRefused,
  installPackage,
  packageSha,
  UploadError,
  UploadOptions,
  UploadResult,
  uploadPackage,
} from './upload';
