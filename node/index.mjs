// ESM entry: the same objects as the CommonJS entry (one addon instance, one set of classes).
import { createRequire } from 'node:module';

const idmint = createRequire(import.meta.url)('./index.js');

export const {
  Snowflake,
  Layout,
  ObjectId,
  parse,
  compose,
  encode,
  decode,
  ENCODINGS,
  Keyring,
  uuid7,
  parseUuid7,
  parseUlid,
  Uuid7Generator,
  Template,
  OrderNumbers,
  IdmintError,
  InvalidLayoutError,
  ValueOutOfRangeError,
  UnknownFieldError,
  MissingFieldError,
  TimeOutOfRangeError,
  EpochInFutureError,
  LayoutExhaustedError,
  ClockMovedBackwardsError,
  InvalidIdError,
  InvalidObjectIdError,
  InvalidArgumentError,
  InvalidKeyError,
  InvalidEncodingError,
  InvalidTemplateError,
  CounterOverflowError,
  InvalidUuidError,
  CheckDigitMismatchError,
  errors,
  ERROR_KINDS,
  PRESETS,
} = idmint;
export default idmint;
