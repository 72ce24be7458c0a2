-- The schema registry keeps its schemas in a database of its own (run once, when the cluster is created).
CREATE DATABASE apicurio;
