'use strict';
// The stores add-on carries no API of its own: `require('idmint')` finds this package and loads
// its platform package's addon (the whole API, stores included) instead of idmint's own
// (idmint's platform.js). Requiring this package gives idmint's API, so either name works.
module.exports = require('idmint');
