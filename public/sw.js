/* global importScripts */
importScripts("/sw-notifications.js");
