// Jest globalSetup for projects whose tests run the real kubectl or helm: unpacks them (kube-tools.cjs) and hands
// their paths to the test workers as KDP_KUBECTL and KDP_HELM (workers inherit the environment).
'use strict';

const { kubeTools } = require('./kube-tools.cjs');

module.exports = async function setupKubeTools() {
  const { kubectl, helm } = kubeTools();
  process.env.KDP_KUBECTL = kubectl;
  process.env.KDP_HELM = helm;
};
