// idmint's API: this package only brings the stores to it (require('idmint') loads them).
export * from 'idmint';
