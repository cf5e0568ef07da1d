"""The RoboGraph task compiler: task-family specification + domain + seed -> TaskInstance.

Pipeline (one small module per step):
  assets         find and load `assets/` (object catalog, family specs, benchmark scene list)
  family         typed view of one family YAML (fixtures, goal templates, recipe ranges)
  recipe         sample which objects play which role so N_g and the predicted L_o hit their targets
  scene          turn a recipe into G0, the goal and the scene roles the events need
  interventions  the six EventSpecs (I1..I6) for a verified baseline
  compile        the retry loop: derived seeds, occluder adjustment towards L_o, reference rollouts
  benchmark      the 84-scene x 7-condition benchmark and its stats.json
  stats          per-scene statistics and the paper-vs-ours table
"""
