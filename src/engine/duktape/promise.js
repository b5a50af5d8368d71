/*
 * Promise for the Duktape backend (Duktape 2.7 has none). ES5, embedded into the engine at
 * build time and evaluated once per heap.
 *
 * Called with the hidden key under which each promise keeps its state (a Duktape hidden
 * symbol: JavaScript cannot name it, enumerate it or forge it), the global object and a one-byte
 * buffer the C side reads directly. Installs the global Promise and returns the entry points the
 * C side uses. Reaction jobs go to a queue that only eng_run_jobs() drains, through run().
 *
 * work[0] becomes 1 whenever a job is queued or a rejection remembered, and only the C side
 * clears it (when pending() has said there is nothing): the loop asks whether jobs are pending
 * after every event, and reading a byte there costs nothing where calling pending() costs a call
 * into JavaScript.
 *
 * Unhandled rejections: a promise rejected while it has no handler is remembered; if it still
 * has none when the queue has been drained, unhandled() hands its reason to C once.
 */
(function (KEY, global, work) {
	'use strict';

	var PENDING = 0, FULFILLED = 1, REJECTED = 2;
	var queue = [];
	var head = 0;
	var rejected = [];
	var hasOwn = Object.prototype.hasOwnProperty;
	var defineProperty = Object.defineProperty;

	function isObject(x) {
		return x !== null && (typeof x === 'object' || typeof x === 'function');
	}

	function enqueue(job, a, b, c) {
		queue.push(job, a, b, c);
		work[0] = 1;
	}

	function stateOf(p) {
		return isObject(p) && hasOwn.call(p, KEY) ? p[KEY] : undefined;
	}

	function State() {
		this.state = PENDING;
		this.value = undefined;
		this.reactions = [];
		this.handled = false;
		/* Set once the promise has been resolved (even to a still pending thenable). */
		this.locked = false;
	}

	function settle(p, state, value) {
		var s = p[KEY];
		var reactions = s.reactions;
		var i;

		if (s.state !== PENDING) {
			return;
		}
		s.state = state;
		s.value = value;
		s.reactions = undefined;
		for (i = 0; i < reactions.length; i++) {
			enqueue(reactionJob, reactions[i], state, value);
		}
		if (state === REJECTED && !s.handled) {
			rejected.push(p);
			work[0] = 1;
		}
	}

	function resolveWith(p, x) {
		var then;

		if (x === p) {
			settle(p, REJECTED, new TypeError('promise resolved with itself'));
			return;
		}
		if (isObject(x)) {
			try {
				then = x.then;
			} catch (e) {
				settle(p, REJECTED, e);
				return;
			}
			if (typeof then === 'function') {
				enqueue(thenableJob, p, x, then);
				return;
			}
		}
		settle(p, FULFILLED, x);
	}

	/* The resolve/reject pair handed to an executor or a thenable: only the first call of
	 * either counts. */
	function resolvingFunctions(p, lockState) {
		var done = false;

		function once() {
			if (done || (lockState && p[KEY].locked)) {
				return false;
			}
			done = true;
			if (lockState) {
				p[KEY].locked = true;
			}
			return true;
		}
		return {
			resolve: function (x) {
				if (once()) {
					resolveWith(p, x);
				}
			},
			reject: function (r) {
				if (once()) {
					settle(p, REJECTED, r);
				}
			}
		};
	}

	function thenableJob(p, x, then) {
		var fns = resolvingFunctions(p, false);

		try {
			then.call(x, fns.resolve, fns.reject);
		} catch (e) {
			fns.reject(e);
		}
	}

	function resolveDerived(p, x) {
		var s = p[KEY];

		if (!s.locked) {
			s.locked = true;
			resolveWith(p, x);
		}
	}

	function rejectDerived(p, r) {
		var s = p[KEY];

		if (!s.locked) {
			s.locked = true;
			settle(p, REJECTED, r);
		}
	}

	function reactionJob(reaction, state, value) {
		var handler = state === FULFILLED ? reaction.onFulfilled : reaction.onRejected;
		var result;

		if (handler === undefined) {
			if (state === FULFILLED) {
				resolveDerived(reaction.promise, value);
			} else {
				rejectDerived(reaction.promise, value);
			}
			return;
		}
		try {
			result = handler(value);
		} catch (e) {
			rejectDerived(reaction.promise, e);
			return;
		}
		resolveDerived(reaction.promise, result);
	}

	function newPromise() {
		var p = Object.create(Promise.prototype);

		p[KEY] = new State();
		return p;
	}

	function method(object, name, fn) {
		defineProperty(object, name, { value: fn, writable: true, configurable: true, enumerable: false });
	}

	function Promise(executor) {
		var fns;

		if (!(this instanceof Promise) || hasOwn.call(this, KEY)) {
			throw new TypeError('Promise must be called with new');
		}
		if (typeof executor !== 'function') {
			throw new TypeError('Promise executor is not a function');
		}
		this[KEY] = new State();
		fns = resolvingFunctions(this, true);
		try {
			executor(fns.resolve, fns.reject);
		} catch (e) {
			fns.reject(e);
		}
	}

	method(Promise.prototype, 'then', function then(onFulfilled, onRejected) {
		var s = stateOf(this);
		var derived, reaction;

		if (s === undefined) {
			throw new TypeError('Promise.prototype.then called on a non-promise');
		}
		derived = newPromise();
		reaction = {
			promise: derived,
			onFulfilled: typeof onFulfilled === 'function' ? onFulfilled : undefined,
			onRejected: typeof onRejected === 'function' ? onRejected : undefined
		};
		if (s.state === PENDING) {
			s.reactions.push(reaction);
		} else {
			enqueue(reactionJob, reaction, s.state, s.value);
		}
		s.handled = true;
		return derived;
	});

	method(Promise.prototype, 'catch', function (onRejected) {
		return this.then(undefined, onRejected);
	});

	method(Promise.prototype, 'finally', function (onFinally) {
		if (typeof onFinally !== 'function') {
			return this.then(onFinally, onFinally);
		}
		return this.then(function (value) {
			return Promise.resolve(onFinally()).then(function () {
				return value;
			});
		}, function (reason) {
			return Promise.resolve(onFinally()).then(function () {
				throw reason;
			});
		});
	});

	method(Promise, 'resolve', function resolve(x) {
		var p;

		if (stateOf(x) !== undefined && x.constructor === Promise) {
			return x;
		}
		p = newPromise();
		resolveDerived(p, x);
		return p;
	});

	method(Promise, 'reject', function reject(r) {
		var p = newPromise();

		rejectDerived(p, r);
		return p;
	});

	/* Arrays and array-likes (ES5 has no iterables). */
	function combinator(list, onItem, onEmpty) {
		var p = newPromise();
		var n, i;

		try {
			if (list === null || list === undefined) {
				throw new TypeError('argument is not an array');
			}
			n = list.length >>> 0;
			if (n === 0) {
				onEmpty(p);
			}
			for (i = 0; i < n; i++) {
				onItem(p, Promise.resolve(list[i]), i, n);
			}
		} catch (e) {
			rejectDerived(p, e);
		}
		return p;
	}

	method(Promise, 'all', function all(list) {
		var results = [], left = 0;

		return combinator(list, function (p, item, i, n) {
			left = n;
			item.then(function (v) {
				results[i] = v;
				if (--left === 0) {
					resolveDerived(p, results);
				}
			}, function (e) {
				rejectDerived(p, e);
			});
		}, function (p) {
			resolveDerived(p, results);
		});
	});

	method(Promise, 'allSettled', function allSettled(list) {
		var results = [], left = 0;

		return combinator(list, function (p, item, i, n) {
			left = n;
			item.then(function (v) {
				results[i] = { status: 'fulfilled', value: v };
				if (--left === 0) {
					resolveDerived(p, results);
				}
			}, function (e) {
				results[i] = { status: 'rejected', reason: e };
				if (--left === 0) {
					resolveDerived(p, results);
				}
			});
		}, function (p) {
			resolveDerived(p, results);
		});
	});

	method(Promise, 'race', function race(list) {
		return combinator(list, function (p, item) {
			item.then(function (v) {
				resolveDerived(p, v);
			}, function (e) {
				rejectDerived(p, e);
			});
		}, function () {});
	});

	method(global, 'Promise', Promise);

	return {
		create: newPromise,
		resolve: function (p, x) {
			if (stateOf(p) !== undefined) {
				resolveDerived(p, x);
			}
		},
		reject: function (p, r) {
			if (stateOf(p) !== undefined) {
				rejectDerived(p, r);
			}
		},
		/* Runs jobs until the queue is empty. A job that throws (only the watchdog or an
		 * exhausted heap can make one) propagates; the jobs after it stay queued. */
		run: function () {
			var job, a, b, c;

			while (head < queue.length) {
				job = queue[head];
				a = queue[head + 1];
				b = queue[head + 2];
				c = queue[head + 3];
				queue[head] = queue[head + 1] = queue[head + 2] = queue[head + 3] = undefined;
				head += 4;
				if (head === queue.length) {
					queue.length = 0;
					head = 0;
				}
				job(a, b, c);
			}
		},
		pending: function () {
			var i;

			if (head < queue.length) {
				return true;
			}
			for (i = 0; i < rejected.length; i++) {
				if (!rejected[i][KEY].handled) {
					return true;
				}
			}
			rejected.length = 0;
			return false;
		},
		/* The reason of the oldest rejection still without a handler, wrapped so that
		 * undefined can be told from "none"; each is reported once. */
		unhandled: function () {
			var p, s;

			while (rejected.length > 0) {
				p = rejected.shift();
				s = p[KEY];
				if (!s.handled) {
					s.handled = true;
					return { reason: s.value };
				}
			}
			return undefined;
		}
	};
})
