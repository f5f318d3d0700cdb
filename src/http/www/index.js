/* index.js: the landing page: the daemon's health line. */
'use strict';

CD.api('v1/health').then((h) => {
	window.contactd.answers.health = h;
	CD.status('status', 'contactd ' + h.version + ', core ' + h.core_version + ', store ' + h.store + '.',
	    h.store === 'ok' ? 'ok' : 'error');
}, (e) => CD.status('status', CD.errorText(e), 'error'));
