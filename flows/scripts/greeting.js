// Run by mobile-steps.flow.yaml: scripts see the flow's variables and share `output` with later steps.
output.greeting = `Welcome, ${USER}`;
console.log('expecting', output.greeting);
